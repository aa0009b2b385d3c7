/**
 * @fleet/cli — the `fleet` command: `compare`, `backends`, `models`.
 * `main(argv, io)` runs it programmatically and returns the exit code.
 */
export { buildProgram, main, type Io } from './program.js';
export { loadBackends, topologySummary } from './backends.js';
export { compareJobs, runJob, parseIntList, type CompareOptions, type CompareRow } from './compare.js';
export { formatTable } from './table.js';
