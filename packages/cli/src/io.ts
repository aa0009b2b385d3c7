/** Where a command writes, and what it knows about its surroundings. */
export interface Io {
  out: (s: string) => void;
  err: (s: string) => void;
  /** Whether stderr is a terminal (progress bars only then). */
  errIsTty: boolean;
  /** Where `fleet.config.json` and installed backends are looked for (default: the process's cwd). */
  cwd?: string;
  /** Stops a long command as Ctrl-C does (what finished is printed); the CLI also listens for SIGINT. */
  signal?: AbortSignal;
  /** A command that succeeded but wants a non-zero exit (e.g. `validate --strict`) sets it. */
  exitCode?: number;
}

export const defaultIo: Io = {
  out: (s) => process.stdout.write(s),
  err: (s) => process.stderr.write(s),
  errIsTty: Boolean(process.stderr.isTTY),
};
