import type { Command } from 'commander';
import { loadBackends, topologySummary } from '../backends.js';
import { policiesOf, policySupport } from '../policies.js';
import type { Io } from '../io.js';

/** `fleet backends`: what is installed, its API version and a topology summary. */
export function registerBackends(program: Command, io: Io): void {
  program
    .command('backends')
    .description('list installed backends: name, API version, topology summary')
    .option('--json', 'machine-readable output')
    .action(async (o) => {
      const registry = await loadBackends(io.cwd);
      const installed = policiesOf(registry);
      const list = registry.all().map((b) => ({
        name: b.name,
        apiVersion: b.apiVersion,
        topology: topologySummary(b),
        policies: policySupport(b, installed),
      }));
      if (o.json) io.out(`${JSON.stringify({ schemaVersion: 1, backends: list }, null, 2)}\n`);
      else for (const b of list) io.out(`${b.name.padEnd(10)} api ${b.apiVersion}  ${b.topology}\n`);
    });
}
