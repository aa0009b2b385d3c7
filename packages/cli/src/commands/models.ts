import type { Command } from 'commander';
import { describeModel, listPresets, MODEL_PRESETS } from '@fleet/core';
import type { Io } from '../io.js';

/** `fleet models`: the model presets. */
export function registerModels(program: Command, io: Io): void {
  program
    .command('models')
    .description('list model presets')
    .option('--json', 'machine-readable output')
    .action((o) => {
      const names = listPresets();
      if (o.json) io.out(`${JSON.stringify({ schemaVersion: 1, models: names.map((n) => MODEL_PRESETS[n]) }, null, 2)}\n`);
      else for (const n of names) io.out(`${describeModel(MODEL_PRESETS[n]!)}\n`);
    });
}
