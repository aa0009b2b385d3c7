// Preloaded into a bench child (NODE_OPTIONS=--require): reports the process's peak RSS and
// CPU time (user + system, every thread) on exit.
process.on('exit', () => {
  const u = process.resourceUsage();
  require('node:fs').writeSync(2, `\nFLEET_BENCH_RSS_KB ${u.maxRSS}\nFLEET_BENCH_CPU_US ${u.userCPUTime + u.systemCPUTime}\n`);
});
