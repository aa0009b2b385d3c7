import { Command, CommanderError } from 'commander';
import { API_VERSION, FleetError } from '@fleet/core';
import { COMMANDS } from './commands/index.js';
import { withFlags } from './flags.js';
import { defaultIo, type Io } from './io.js';

export type { Io } from './io.js';

/** Build the `fleet` command. */
export function buildProgram(io: Io = defaultIo): Command {
  const program = new Command('fleet')
    .description('Predict and compare LLM decode on multi-die and cluster GPUs')
    .version(`fleet 0.1.0 (backend API ${API_VERSION})`)
    .exitOverride()
    .configureOutput({
      writeOut: io.out,
      writeErr: io.err,
      // One line per error: commander puts "(Did you mean …?)" on a line of its own.
      outputError: (str, write) => write(`${str.trimEnd().replace(/\s*\n\s*/g, ' ')}\n`),
    });
  for (const register of COMMANDS) register(program, io);
  return program;
}
/** Run the CLI; returns the exit code. Bad input prints one line and exits 2; deadlocks 3. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode ?? 0;
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof FleetError) {
      io.err(`fleet: ${withFlags(e.message)}\n`);
      return e.exitCode;
    }
    io.err(`fleet: internal error: ${e instanceof Error ? e.message.split('\n')[0] : safeString(e)}\n`);
    return 1;
  }
}

function safeString(e: unknown): string {
  try {
    return String(e);
  } catch {
    return Object.prototype.toString.call(e);
  }
}
