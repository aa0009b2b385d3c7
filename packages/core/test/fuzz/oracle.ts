/**
 * What every fuzzed input must get from Fleet: either a result that passes the caller's own
 * checks, or a one-line `FleetError` (exit code 2) naming the input, the field and the rule —
 * with bounded memory (no wall-clock limit per case: a shared CI machine makes any such limit
 * flaky; the test-level timeout below only stops a hang). Anything else escaping (a TypeError, a
 * RangeError...) fails the property, so fast-check shrinks it to a minimal example.
 */
import { FleetError } from '../../src/errors/fleet-error.js';

/** Resident memory one case may add. */
export const CASE_MEMORY_BYTES = 256 * 2 ** 20;

/**
 * Fast-check parameters: a fixed seed, so CI runs the same cases every time. To explore,
 * set `FLEET_FUZZ_SEED` (a failure prints the seed and path that replay it) and
 * `FLEET_FUZZ_RUNS` (a multiplier of every property's number of cases).
 */
export function fuzz(numRuns: number): { numRuns: number; seed: number; endOnFailure: true } {
  const seed = process.env.FLEET_FUZZ_SEED;
  const scale = Number(process.env.FLEET_FUZZ_RUNS ?? 1);
  return { numRuns: Math.max(1, Math.round(numRuns * scale)), seed: seed === undefined ? 0x5eed : Number(seed), endOnFailure: true };
}

/** Words a message uses to state the rule that was broken. */
export const RULE =
  /must|allowed|supported|expect|at most|missing|exceed|beyond|overlap|invalid|not valid|unknown|twice|shorter|needs|failed|cannot|no default export|no config\.json|not a preset|too large|absurdly/;

/**
 * A test-level time limit: the properties take a few seconds; this only stops a hang, and
 * grows with `FLEET_FUZZ_RUNS`. Call `vi.setConfig({ testTimeout: FUZZ_TIMEOUT_MS })`.
 */
export const FUZZ_TIMEOUT_MS = 30_000 * Math.max(1, Number(process.env.FLEET_FUZZ_RUNS ?? 1));

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: FleetError };

function checkRejection(e: unknown): FleetError {
  if (!(e instanceof FleetError)) {
    const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    throw new Error(`expected a FleetError or a result, got ${what}`);
  }
  if (e.exitCode !== 2) throw new Error(`expected exit code 2 (bad input), got ${e.exitCode}: ${e.message}`);
  if (/[\r\n\u2028\u2029]/.test(e.message)) throw new Error(`message is not one line: ${JSON.stringify(e.message)}`);
  if (e.message.trim() === '') throw new Error('empty error message');
  return e;
}

function checkCost(startRss: number): void {
  const grew = process.memoryUsage.rss() - startRss;
  if (grew > CASE_MEMORY_BYTES) throw new Error(`resident memory grew by ${(grew / 2 ** 20).toFixed(0)} MiB`);
}

/** Run `fn` on one fuzzed input: its result, or the one-line `FleetError` it threw. */
export function outcome<T>(fn: () => T): Outcome<T> {
  const rss0 = process.memoryUsage.rss();
  let result: Outcome<T>;
  try {
    result = { ok: true, value: fn() };
  } catch (e) {
    result = { ok: false, error: checkRejection(e) };
  }
  checkCost(rss0);
  return result;
}

export async function outcomeAsync<T>(fn: () => Promise<T>): Promise<Outcome<T>> {
  const rss0 = process.memoryUsage.rss();
  let result: Outcome<T>;
  try {
    result = { ok: true, value: await fn() };
  } catch (e) {
    result = { ok: false, error: checkRejection(e) };
  }
  checkCost(rss0);
  return result;
}

/** The message of a rejection that names every one of `mentions` and states a rule. */
export function rejected<T>(o: Outcome<T>, ...mentions: string[]): string {
  if (o.ok) throw new Error(`expected a rejection naming ${mentions.join(', ')}, but the input was accepted`);
  const msg = o.error.message;
  for (const m of mentions) if (!msg.includes(m)) throw new Error(`message does not name ${JSON.stringify(m)}: ${msg}`);
  if (!RULE.test(msg)) throw new Error(`message states no rule: ${msg}`);
  return msg;
}

/** Shorthand: run and expect a one-line rejection naming `mentions`. */
export function rejects(fn: () => unknown, ...mentions: string[]): string {
  return rejected(outcome(fn), ...mentions);
}

export async function rejectsAsync(fn: () => Promise<unknown>, ...mentions: string[]): Promise<string> {
  return rejected(await outcomeAsync(fn), ...mentions);
}

/** A value no JSON config should hold where a positive integer belongs. */
export function isPositiveInteger(v: unknown): boolean {
  return typeof v === 'number' && Number.isInteger(v) && v > 0;
}
