/** Every number of a topology must say where it comes from: helpers to check that. */

/**
 * JSON pointers of the numeric leaves of `value` (RFC 6901 escaping). An array of numbers is
 * one leaf (`/partitions/computeUnits`); `sources` itself is skipped.
 */
export function numericLeafPointers(value: unknown, pointer = ''): string[] {
  if (typeof value === 'number') return [pointer];
  if (Array.isArray(value)) {
    if (value.length > 0 && value.every((v) => typeof v === 'number')) return [pointer];
    return value.flatMap((v, i) => numericLeafPointers(v, `${pointer}/${i}`));
  }
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) =>
      pointer === '' && k === 'sources' ? [] : numericLeafPointers(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`),
    );
  }
  return [];
}

/** The value a JSON pointer names, or `undefined`. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root;
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object' || !(key in cur)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

/**
 * A provenance string starts with its tag: DS (datasheet), DER (derived), MEAS (measured),
 * MEAS* (measured on a close relative), CAL (calibrated), UNC (assumed), REP (reported).
 */
export const PROVENANCE_TAG = /^(DS|DER|MEAS\*?|CAL|UNC|REP)[\s/]/;
