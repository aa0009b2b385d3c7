/**
 * Policies on MI350: FLEET runs 31 workers + 1 scheduler per XCD (8 × 31 + 8 = 256 CUs;
 * seeds §1, FLEET python/mirage/utils.py default per seedcode §5, CAL fleet-mi350-qwen3-8b.json
 * workersPerXcd 31).
 */
import { cdnaPolicies } from '@fleet/family-cdna';
import type { PolicySupport } from '@fleet/core';

export const WORKERS_PER_XCD = 31;

export const policies: readonly PolicySupport[] = cdnaPolicies(WORKERS_PER_XCD);
