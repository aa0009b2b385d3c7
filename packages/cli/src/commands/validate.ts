import type { Command } from 'commander';
import { inputError, TOKENS, type BackendRegistry, type ValidationRow, type ValidationSuite } from '@fleet/core';
import { SUITES, summariseSuites } from '@fleet/validation';
import { loadBackends } from '../backends.js';
import { checkedContributions } from '../contributions.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { formatValidation, suiteSummary } from '../validate/format.js';

const SUITE_SCHEMA = {
  type: 'object',
  required: ['name', 'description', 'backends', 'points'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9.-]*$' },
    description: { type: 'string' },
    backends: { type: 'array', items: { type: 'string' } },
    points: { type: 'integer', minimum: 0 },
  },
};

/**
 * The installed suites: every `TOKENS.ValidationSuite` the loaded plugins bound (Fleet's own
 * come from @fleet/validation, a built-in extension), in load order, names unique.
 */
export function installedSuites(registry: BackendRegistry): ValidationSuite[] {
  return checkedContributions<ValidationSuite>(registry, TOKENS.ValidationSuite, 'TOKENS.ValidationSuite', {
    schema: SUITE_SCHEMA,
    methods: ['run'],
    key: 'name',
  });
}

/** `fleet validate`: run the published experiments and print predicted vs published. */
export function registerValidate(program: Command, io: Io): void {
  program
    .command('validate')
    .description('run published/measured experiments and print predicted vs published with the error of each point')
    .option('--suite <names>', `comma-separated suites (Fleet's: ${SUITES.map((s) => s.name).join(', ')}; installed packages may add more; default all)`)
    .option('--json', 'machine-readable output')
    .option('--strict', 'exit with code 1 if any point is outside its tolerance (without it, misses are reported and the exit code is 0)')
    .action(async (o) => {
      const registry = await loadBackends(io.cwd);
      const installed = installedSuites(registry);
      const names = o.suite ? (o.suite as string).split(',').map((s) => s.trim()) : installed.map((s) => s.name);
      const suites = names.map((n) => {
        const s = installed.find((x) => x.name === n);
        if (!s) throw inputError(`--suite: unknown suite '${n}' (known: ${installed.map((x) => x.name).join(', ')})`);
        return s;
      });
      const bar = progress(
        io,
        suites.reduce((a, s) => a + s.points, 0),
        'validating',
      );
      // Off a terminal, a line per suite as it starts and ends, so a long run is never silent.
      const rows: ValidationRow[] = suites.flatMap((s) => {
        if (!io.errIsTty) io.err(`fleet: validating ${s.name} (${s.points} points)\n`);
        const rs = s.run(registry, bar.tick);
        if (!io.errIsTty) io.err(`fleet: ${suiteSummary(s.name, rs)}\n`);
        return rs;
      });
      bar.stop();
      if (o.json) io.out(`${JSON.stringify({ schemaVersion: 1, rows, suites: summariseSuites(rows) }, null, 2)}\n`);
      else io.out(`${formatValidation(rows)}\n`);
      if (o.strict && rows.some((r) => !r.ok)) io.exitCode = 1;
    });
}
