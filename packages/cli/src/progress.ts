import cliProgress from 'cli-progress';
import type { Io } from './io.js';

/** A progress bar on stderr when it is a terminal; off one, a line now and then for long work. */
export interface Progress {
  /** A job starts. */
  tick(label: string): void;
  /** A job finished (work that reports completions, not starts). */
  advance(label: string): void;
  stop(): void;
}

/** How often a progress line is printed when stderr is not a terminal (a log, CI). */
export const LOG_EVERY_MS = 30_000;

/**
 * `eta`: show the estimated time left (from the rate so far), for long sweeps. Off a
 * terminal, `log` prints `fleet: <what>: k of n finished` every `LOG_EVERY_MS` while work
 * goes on (useful when the caller's thread stays free: worker threads, queues).
 */
export function progress(io: Io, total: number, what = 'simulating', opts: { eta?: boolean; log?: boolean } = {}): Progress {
  if (!io.errIsTty || total < 2) {
    if (!opts.log || total < 2) return { tick: () => {}, advance: () => {}, stop: () => {} };
    let done = 0;
    const t0 = Date.now();
    const timer = setInterval(() => {
      const s = Math.round((Date.now() - t0) / 1000);
      io.err(`fleet: ${what}: ${done} of ${total} finished (${s} s)\n`);
    }, LOG_EVERY_MS);
    timer.unref();
    return { tick: () => {}, advance: () => void done++, stop: () => clearInterval(timer) };
  }
  const bar = new cliProgress.SingleBar(
    {
      format: `${what} {bar} {value}/{total}${opts.eta ? ' | ETA {eta_formatted}' : ''} {label}`,
      etaBuffer: 50,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: '' });
  let done = 0;
  return {
    tick: (label) => bar.update(done++, { label }),
    advance: (label) => bar.update(++done, { label }),
    stop: () => {
      bar.update(total, { label: '' });
      bar.stop();
    },
  };
}
