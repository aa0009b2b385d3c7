import { lineError, showValue } from './messages.js';

/** Readers of a Hugging Face `config.json`'s fields, each with a one-line error naming the file, the field and what is allowed. */

export type Cfg = Record<string, unknown>;

/** `null` in a config means "not set" (e.g. Mistral's `head_dim: null`). */
export const present = (cfg: Cfg, f: string): boolean => cfg[f] !== undefined && cfg[f] !== null;

/** An integer field in min..max (`dflt` where absent; without one the field is required). */
export function int(cfg: Cfg, f: string, origin: string, min: number, max: number, dflt?: number): number {
  if (!present(cfg, f)) {
    if (dflt !== undefined) return dflt;
    throw lineError(`${origin}: missing field '${f}' (an integer in ${min}..${max})`);
  }
  const v = cfg[f];
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw lineError(`${origin}: field '${f}' (${showValue(v)}) must be an integer in ${min}..${max}`);
  }
  return v;
}

/** A boolean field (`dflt` where absent). */
export function bool(cfg: Cfg, f: string, origin: string, dflt: boolean): boolean {
  if (!present(cfg, f)) return dflt;
  const v = cfg[f];
  if (typeof v !== 'boolean') throw lineError(`${origin}: field '${f}' (${showValue(v)}) must be true or false`);
  return v;
}
