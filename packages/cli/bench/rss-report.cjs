// Preloaded into a bench child (NODE_OPTIONS=--require): reports the process's peak RSS on exit.
process.on('exit', () => {
  require('node:fs').writeSync(2, `\nFLEET_BENCH_RSS_KB ${process.resourceUsage().maxRSS}\n`);
});
