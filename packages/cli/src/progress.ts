import cliProgress from 'cli-progress';
import type { Io } from './io.js';

/** A progress bar on stderr when it is a terminal; silent otherwise. */
export interface Progress {
  tick(label: string): void;
  stop(): void;
}

export function progress(io: Io, total: number, what = 'simulating'): Progress {
  if (!io.errIsTty || total < 2) return { tick: () => {}, stop: () => {} };
  const bar = new cliProgress.SingleBar(
    { format: `${what} {bar} {value}/{total} {label}`, stream: process.stderr, hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  bar.start(total, 0, { label: '' });
  let done = 0;
  return {
    tick: (label) => bar.update(done++, { label }),
    stop: () => {
      bar.update(total, { label: '' });
      bar.stop();
    },
  };
}
