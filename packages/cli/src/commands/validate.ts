import type { Command } from 'commander';
import { inputError, type ValidationRow } from '@fleet/core';
import { loadBackends } from '../backends.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { formatValidation } from '../validate/format.js';
import { SUITES } from '../validate/suites.js';

/** `fleet validate`: run the published experiments and print predicted vs published. */
export function registerValidate(program: Command, io: Io): void {
  program
    .command('validate')
    .description('run published/measured experiments and print predicted vs published with the error of each point')
    .option('--suite <names>', `comma-separated suites (${SUITES.map((s) => s.name).join(', ')}; default all)`)
    .option('--json', 'machine-readable output')
    .option('--strict', 'exit with code 1 if any point is outside its tolerance')
    .action(async (o) => {
      const names = o.suite ? (o.suite as string).split(',').map((s) => s.trim()) : SUITES.map((s) => s.name);
      const suites = names.map((n) => {
        const s = SUITES.find((x) => x.name === n);
        if (!s) throw inputError(`--suite: unknown suite '${n}' (known: ${SUITES.map((x) => x.name).join(', ')})`);
        return s;
      });
      const registry = await loadBackends(io.cwd);
      const bar = progress(io, suites.reduce((a, s) => a + s.points, 0), 'validating');
      const rows: ValidationRow[] = suites.flatMap((s) => s.run(registry, bar.tick));
      bar.stop();
      if (o.json) io.out(`${JSON.stringify({ schemaVersion: 1, rows }, null, 2)}\n`);
      else io.out(`${formatValidation(rows)}\n`);
      if (o.strict && rows.some((r) => !r.ok)) io.exitCode = 1;
    });
}
