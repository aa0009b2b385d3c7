import cliProgress from 'cli-progress';
import type { Io } from './io.js';

/** A progress bar on stderr when it is a terminal; silent otherwise. */
export interface Progress {
  /** A job starts. */
  tick(label: string): void;
  /** A job finished (work that reports completions, not starts). */
  advance(label: string): void;
  stop(): void;
}

/** `eta`: show the estimated time left (from the rate so far), for long sweeps. */
export function progress(io: Io, total: number, what = 'simulating', opts: { eta?: boolean } = {}): Progress {
  if (!io.errIsTty || total < 2) return { tick: () => {}, advance: () => {}, stop: () => {} };
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
