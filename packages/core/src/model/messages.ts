/**
 * Helpers that keep loader error messages on one line, whatever the offending value or the
 * wrapped exception looks like.
 */

/** A short, single-line rendering of a JSON value. */
export function showValue(v: unknown): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  s = s.replace(/\s+/g, ' ');
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** The message of a caught exception, on one line. */
export function oneLine(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}
