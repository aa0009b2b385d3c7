/**
 * One line of `fleet validate`: a published or measured number beside Fleet's prediction.
 * Suites (per backend, per study) produce rows; the CLI prints and summarises them.
 */
export interface ValidationRow {
  suite: string;
  experiment: string;
  /** `calibration`: the value may have set a parameter; `claim`/`measurement`: predicted. */
  kind: 'calibration' | 'claim' | 'measurement';
  /** What was published or measured: a value, or a [lo, hi] range. */
  published: number | [number, number];
  predicted: number;
  unit: string;
  /** Signed error of the prediction: % for values, points for rates; 0 inside a range. */
  error: number;
  errorUnit: '%' | 'pt';
  /** The tolerance the row is judged by, in `errorUnit`. */
  tolerance: number;
  ok: boolean;
  source: string;
}

/** Relative error in % of `predicted` against a value or a range (0 inside it). */
export function relativeError(predicted: number, published: number | [number, number]): number {
  if (Array.isArray(published)) {
    const [lo, hi] = published;
    if (predicted < lo) return ((predicted - lo) / lo) * 100;
    if (predicted > hi) return ((predicted - hi) / hi) * 100;
    return 0;
  }
  return ((predicted - published) / published) * 100;
}

/** Error in points (×100) of a rate against a rate or range. */
export function pointError(predicted: number, published: number | [number, number]): number {
  if (Array.isArray(published)) {
    const [lo, hi] = published;
    return predicted < lo ? (predicted - lo) * 100 : predicted > hi ? (predicted - hi) * 100 : 0;
  }
  return (predicted - published) * 100;
}
