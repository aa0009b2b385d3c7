/**
 * Tuning on MI350: FLEET runs 31 workers + 1 scheduler per XCD (8 × 31 + 8 = 256 CUs;
 * seeds §1, FLEET python/mirage/utils.py default per seedcode §5, CAL fleet-mi350-qwen3-8b.json
 * workersPerXcd 31).
 */
import type { BackendTuning } from '@fleet/core';
import { cdnaTuning } from '@fleet/family-cdna';

export const WORKERS_PER_XCD = 31;

export const tuning: BackendTuning = cdnaTuning(WORKERS_PER_XCD);
