import { describe, expect, it } from 'vitest';
import { loadBackend } from '@fleet/core';
import h100 from '@fleet/backend-h100';
import { h100NcclValidation, ncclGraphAllReduceUs } from '../src/index.js';

describe('NCCL all-reduce on two H100s against our run', () => {
  it('small messages price NCCL alone (LL ring), not the engine custom all-reduce', () => {
    const rows = h100NcclValidation(loadBackend(h100, 'h100'), { quick: true });
    expect(rows).toHaveLength(2);
    const small = rows.find((r) => r.experiment.includes(' 8 KB'))!;
    expect(small.ok, `${small.predicted} vs ${String(small.published)}`).toBe(true);
  });

  it('forcing Simple costs more than LL at 8 KB', () => {
    const b = loadBackend(h100, 'h100');
    expect(ncclGraphAllReduceUs(b, 8192, 2, 'Simple')).toBeGreaterThan(ncclGraphAllReduceUs(b, 8192, 2, 'LL'));
  });
});
