/**
 * @fleet/cli — the `fleet` command: `compare`, `sweep`, `worker`, `report`, `backends`, `models`, ...
 * `main(argv, io)` runs it programmatically and returns the exit code.
 */
export { buildProgram, main, type Io } from './program.js';
export { FLAG_OF_FIELD, withFlags } from './flags.js';
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
export {
  collectReportData,
  writeReport,
  reportCharts,
  renderSvg,
  renderPng,
  type ReportData,
  type ReportRow,
  type ChartSpec,
  type ReportSection,
} from './report/index.js';
export { parseLayerRange, AUTO_GZIP_MIB } from './commands/trace.js';
export { SWEEP_AXES, jobLabel, overridesOfParams, type SweepAxis, type SweepParams } from './sweep/axes.js';
export { expandSweep, loadSweep, readSpecFile, sweepSchema, jobId, modelPath, type ExpandedSweep, type SweepJobSpec } from './sweep/spec.js';
export { SweepJobRunner, resultLine, type SweepResult, type SweepContext, type JobFailure } from './sweep/runner.js';
export { SweepOutput, SWEEP_FORMATS, sweepCsvColumns, formatResult, readResults, type SweepFormat } from './sweep/output.js';
export { runLocal, defaultWorkers, type OnJobDone } from './sweep/local.js';
export { runQueued, startWorker, parseQueueUrl, probeRedis, type QueueJobData, type QueueSweepOptions, type WorkerOptions } from './sweep/queue.js';
export { sweepReportData } from './report/from-sweep.js';
export { compileLinearOp, runLinearOp, type CompiledLinearOp, type OpResult } from './commands/op.js';
