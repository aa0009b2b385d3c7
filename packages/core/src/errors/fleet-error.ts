/**
 * Errors Fleet reports to a user: one line, naming the input (file, field) and the rule,
 * with the process exit code the CLI should use. Anything that is not a `FleetError` is a
 * bug in Fleet and is reported as such.
 *
 * A message about an option of a library call names the option's field as the caller wrote
 * it, in backticks (`` `tp` must be an integer in 1..64 ``, `` raise `maxSimSteps` ``), and
 * `field` says which option was at fault. A front end that spells options differently
 * (the CLI's `--max-sim-steps`) rewrites the quoted names; see `quotedFields`.
 */
export class FleetError extends Error {
  constructor(
    message: string,
    /** 1 = a check ran and failed (`fleet verify`), 2 = bad input, 3 = a simulation that cannot make progress (deadlock). */
    readonly exitCode: 1 | 2 | 3 = 2,
    /** The option field at fault (`tp`, `prompt`, `maxSimSteps`), when the error is about one. */
    readonly field?: string,
  ) {
    super(message);
    this.name = 'FleetError';
  }
}

/** Bad input: a config, a topology, an argument, a plugin. Exit code 2. `field`: the option at fault, if any. */
export function inputError(message: string, field?: string): FleetError {
  return new FleetError(message, 2, field);
}

/** An option field as a message quotes it: `` `maxSimSteps` ``. */
const QUOTED_FIELD = /`([A-Za-z][A-Za-z0-9]*)`/g;

/**
 * A message with each option field it quotes (`` `maxSimSteps` ``) replaced by `spell(field)`,
 * e.g. a CLI flag; fields `spell` does not know (it returns undefined) stay as they are.
 */
export function quotedFields(message: string, spell: (field: string) => string | undefined): string {
  return message.replace(QUOTED_FIELD, (quoted, field: string) => spell(field) ?? quoted);
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
