/**
 * @fleet/cli — the `fleet` command: `compare`, `backends`, `models`.
 * `main(argv, io)` runs it programmatically and returns the exit code.
 */
export { buildProgram, main, type Io } from './program.js';
export { loadBackends, topologySummary } from './backends.js';
export { compareJobs, runJob, parseIntList, type CompareOptions, type CompareRow } from './compare.js';
export { formatTable } from './format/table.js';
export {
  COMPARE_FORMATS,
  formatCompare,
  formatCsv,
  formatMarkdown,
  csvField,
  HUMAN_COLUMNS,
  RAW_FIELDS,
  type CompareFormat,
  type CompareOutput,
  type CompareSampling,
  type Column,
} from './format/index.js';
export { collectReportData, writeReport, reportCharts, renderSvg, renderPng, type ReportData, type ReportRow, type ChartSpec } from './report/index.js';
export { parseLayerRange, AUTO_GZIP_MIB } from './commands/trace.js';
export { compileLinearOp, runLinearOp, type CompiledLinearOp, type OpResult } from './commands/op.js';
