import type { BackendRegistry } from '../plugin/load-backend.js';
import type { ValidationRow } from './validation-row.js';

/**
 * A `fleet validate` suite, bound to `TOKENS.ValidationSuite` by any plugin: the backends it
 * needs, how much work it is (points, for progress), and how to run it against the loaded
 * backends.
 */
export interface ValidationSuite {
  /** What users pass to `--suite`: lower case, digits and dashes, unique among installed suites. */
  name: string;
  description: string;
  backends: string[];
  points: number;
  run(registry: BackendRegistry, tick: (label: string) => void): ValidationRow[];
}
