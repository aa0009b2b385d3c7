import type { Command } from 'commander';
import type { Io } from '../io.js';
import { registerAttention } from './attention.js';
import { registerBackends } from './backends.js';
import { registerCollective } from './collective.js';
import { registerCompare } from './compare.js';
import { registerModels } from './models.js';
import { registerOp } from './op.js';
import { registerReport } from './report.js';
import { registerSweep } from './sweep.js';
import { registerTrace } from './trace.js';
import { registerValidate } from './validate.js';
import { registerVerify } from './verify.js';
import { registerWorker } from './worker.js';

/** Every `fleet` subcommand, in help order. Add a command: one module, one line here. */
export const COMMANDS: ((program: Command, io: Io) => void)[] = [
  registerCompare,
  registerSweep,
  registerWorker,
  registerBackends,
  registerModels,
  registerTrace,
  registerReport,
  registerValidate,
  registerVerify,
  registerAttention,
  registerCollective,
  registerOp,
];
