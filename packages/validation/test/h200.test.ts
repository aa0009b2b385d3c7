import { loadBackend } from '@fleet/core';
import h200 from '@fleet/backend-h200';
import { describe, expect, it } from 'vitest';
import sweep from '../src/h200/measured/h200-pipeline-ours.json' with { type: 'json' };

describe('h200 against its own sweep', () => {
  const b = loadBackend(h200, 'test');

  it('takes its achievable HBM bandwidth from the one calibration point of the sweep, and nothing from the decode numbers', () => {
    expect(b.topology.memory.hbm.achievableBandwidthBytesPerNs).toBe(Math.round(sweep.env.sumReadTBps * 1000));
    expect(b.topology.memory.l2.capacityBytes).toBe(sweep.env.l2Bytes);
  });
});
