/**
 * Tuning on MI300X: FLEET's MI300X port uses 37 workers + 1 scheduler per XCD
 * (8 × 37 + 8 = 304 CUs; FLEET python/mirage/utils.py, seedcode §5; seeds §1).
 */
import type { BackendTuning } from '@fleet/core';
import { cdnaTuning } from '@fleet/family-cdna';

export const WORKERS_PER_XCD = 37;

export const tuning: BackendTuning = cdnaTuning(WORKERS_PER_XCD);
