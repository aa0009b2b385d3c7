import { inputError, type FleetError } from '../errors/fleet-error.js';

/**
 * Helpers that keep loader error messages on one line, whatever the offending value, the
 * file name or the wrapped exception looks like.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: these are the characters it finds and escapes
const CONTROL = /[\u0000-\u001f\u007f\u2028\u2029]/g;
const ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Control characters (newlines above all) escaped, as JSON writes them: `a\nb` stays readable on one line. */
export function escapeControls(s: string): string {
  return s.replace(CONTROL, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * A bad-input `FleetError` whose message is one line even when it quotes a path, a tensor
 * name or a package name holding a newline. `field`: the option at fault, if any.
 */
export function lineError(message: string, field?: string): FleetError {
  return inputError(escapeControls(message), field);
}

/** A short, single-line rendering of a JSON value (non-finite numbers as themselves, not `null`). */
export function showValue(v: unknown): string {
  let s: string;
  try {
    s = typeof v === 'number' && !Number.isFinite(v) ? String(v) : (JSON.stringify(v) ?? String(v));
  } catch {
    s = safeString(v);
  }
  s = s.replace(/\s+/g, ' ');
  return s.length > 40 ? `${s.slice(0, 37)}...` : s;
}

/** `String(v)`, or a type name for values that refuse conversion (null-prototype objects). */
export function safeString(v: unknown): string {
  try {
    return String(v);
  } catch {
    return Object.prototype.toString.call(v);
  }
}

/** The message of a caught exception, on one line. */
export function oneLine(e: unknown): string {
  let msg: string;
  try {
    msg = e instanceof Error ? String(e.message) : safeString(e);
  } catch {
    msg = safeString(e);
  }
  return msg.replace(/\s*\n\s*/g, ' ').trim();
}

/** The first non-empty line of what was thrown (an error's message, or any value), for wrapping a plugin's failure. */
export function firstLine(e: unknown): string {
  let text: string;
  try {
    text = e instanceof Error ? String(e.message) : safeString(e);
  } catch {
    text = safeString(e);
  }
  return (
    text
      .split(/\r?\n/)
      .find((l) => l.trim() !== '')
      ?.trim() ?? '(no message)'
  );
}
