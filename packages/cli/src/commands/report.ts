import { resolve } from 'node:path';
import type { Command } from 'commander';
import { compareJobs } from '../compare.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';
import { addCompareOptions, collectReportData, resolveCompareOptions, writeReport } from '../report/index.js';

/** `fleet report`: run a comparison and write it as an HTML page with charts. */
export function registerReport(program: Command, io: Io): void {
  addCompareOptions(
    program
      .command('report')
      .description('run a comparison and write a self-contained HTML report with SVG and PNG charts')
      .requiredOption('--out <dir>', 'directory to write index.html, compare.{json,csv,md} and charts/ into'),
  )
    .option('--json', 'print a machine-readable list of the files written')
    .action(async (o) => {
      const { model, opts, sampling } = await resolveCompareOptions(o, io);
      const dir = resolve(io.cwd ?? process.cwd(), o.out);
      const bar = progress(io, compareJobs(opts).length);
      const data = collectReportData(model, opts, bar);
      bar.stop();
      const files = await writeReport(dir, data, sampling);
      if (o.json) io.out(JSON.stringify({ schemaVersion: 1, dir, files }, null, 2) + '\n');
      else io.out(`wrote ${resolve(dir, 'index.html')} (${files.length} files: comparison, ${files.filter((f) => f.endsWith('.svg')).length} charts as SVG and PNG)\n`);
    });
}
