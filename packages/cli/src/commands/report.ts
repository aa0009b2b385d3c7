import { resolve } from 'node:path';
import type { Command } from 'commander';
import type { CompareSampling } from '../format/index.js';
import type { ReportData } from '../report/index.js';
import { compareJobs } from '../compare.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { loadBackends } from '../backends.js';
import { addCompareOptions, resolveCompareOptions } from '../report/compare-options.js';

/** `fleet report`: run a comparison and write it as an HTML page with charts. */
export function registerReport(program: Command, io: Io): void {
  addCompareOptions(
    program
      .command('report')
      .description('run a comparison (or read `fleet sweep` results) and write a self-contained HTML report with SVG and PNG charts')
      .option(
        '--from <results.jsonl>',
        'draw the results of `fleet sweep` instead of running a comparison (--model picks one model when the file holds several)',
      )
      .requiredOption('--out <dir>', 'directory to write index.html, compare.{json,csv,md} and charts/ into'),
  )
    .option('--json', 'print a machine-readable list of the files written')
    .action(async (o, cmd: Command) => {
      // The charts' renderers (vega, resvg) load only when a report is written: every other command starts faster.
      const { collectReportData, contributedSections, sweepReportData, writeReport } = await import('../report/index.js');
      const cwd = io.cwd ?? process.cwd();
      const dir = resolve(cwd, o.out);
      let data: ReportData;
      let sampling: CompareSampling;
      if (o.from !== undefined) {
        const model = cmd.getOptionValueSource('model') === 'cli' ? (o.model as string) : undefined;
        ({ data, sampling } = await sweepReportData(resolve(cwd, o.from), cwd, model));
      } else {
        const resolved = await resolveCompareOptions(o, io);
        sampling = resolved.sampling;
        const bar = progress(io, compareJobs(resolved.opts).length);
        data = collectReportData(resolved.model, resolved.opts, bar);
        bar.stop();
      }
      const files = await writeReport(dir, data, sampling, contributedSections(await loadBackends(cwd)));
      if (o.json) io.out(`${JSON.stringify({ schemaVersion: 1, dir, files }, null, 2)}\n`);
      else
        io.out(
          `wrote ${resolve(dir, 'index.html')} (${files.length} files: comparison, ${files.filter((f) => f.endsWith('.svg')).length} charts as SVG and PNG)\n`,
        );
    });
}
