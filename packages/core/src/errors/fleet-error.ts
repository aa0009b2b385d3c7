/**
 * Errors Fleet reports to a user: one line, naming the input (file, field) and the rule,
 * with the process exit code the CLI should use. Anything that is not a `FleetError` is a
 * bug in Fleet and is reported as such.
 */
export class FleetError extends Error {
  constructor(
    message: string,
    /** 1 = a check ran and failed (`fleet verify`), 2 = bad input, 3 = a simulation that cannot make progress (deadlock). */
    readonly exitCode: 1 | 2 | 3 = 2,
  ) {
    super(message);
    this.name = 'FleetError';
  }
}

/** Bad input: a config, a topology, an argument, a plugin. Exit code 2. */
export function inputError(message: string): FleetError {
  return new FleetError(message, 2);
}

/** A task graph that cannot finish. Exit code 3. */
export class DeadlockError extends FleetError {
  constructor(
    message: string,
    readonly blockedTasks: readonly string[],
    readonly pendingEvents: readonly string[],
  ) {
    super(message, 3);
    this.name = 'DeadlockError';
  }
}
