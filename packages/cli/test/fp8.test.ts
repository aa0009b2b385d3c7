import { describe, expect, it } from 'vitest';
import { run } from './helpers.js';

const decode = ['compare', '--model', 'qwen3-8b', '--batch', '1', '--policies', 'kernel-per-op-graph', '--decode', '16', '--json'];

async function rows(args: string[]) {
  const r = await run(args);
  expect(r.err).not.toMatch(/internal error/);
  expect(r.code).toBe(0);
  return JSON.parse(r.out).results as {
    backend: string;
    policy: string;
    weights: string;
    status: string;
    reason?: string;
    tpotMs: number;
    hbmReadBytes: number;
  }[];
}

describe('W8A8 FP8 weights end to end', () => {
  it('fleet compare --weights f8e4m3 on the h100: FP8 decode reads about half the weight bytes; per-tensor scales beat bf16, per-channel ones less so', async () => {
    const [bf16] = await rows([...decode, '--backends', 'h100']);
    const tpot: Record<string, number> = {};
    for (const w of ['f8e4m3', 'f8e4m3c', 'f8e4m3ae5m2']) {
      const [fp8] = await rows([...decode, '--backends', 'h100', '--weights', w]);
      expect(fp8, w).toMatchObject({ backend: 'h100', weights: w, status: 'ok' });
      expect(fp8!.hbmReadBytes, w).toBeLessThan(bf16!.hbmReadBytes * 0.65);
      tpot[w] = fp8!.tpotMs;
    }
    expect(tpot.f8e4m3!).toBeLessThan(bf16!.tpotMs * 0.85);
    expect(tpot.f8e4m3ae5m2!).toBeLessThan(bf16!.tpotMs * 0.85);
    // per-channel scales run cuBLASLt's row-wise 128 × 128 kernel at every M, which our sweep
    // times at M = 1 at 1.3–1.7× the per-tensor GEMV (`fleet validate --suite h100-fp8`)
    expect(tpot.f8e4m3c!).toBeGreaterThan(tpot.f8e4m3!);
  });

  it('fleet compare on the mi300x: f8e4m3fnuz runs, OCP f8e4m3 is refused with the reason', async () => {
    const [bf16] = await rows([...decode, '--backends', 'mi300x']);
    const [fnuz] = await rows([...decode, '--backends', 'mi300x', '--weights', 'f8e4m3fnuz']);
    expect(fnuz).toMatchObject({ weights: 'f8e4m3fnuz', status: 'ok' });
    expect(fnuz!.tpotMs).toBeLessThan(bf16!.tpotMs * 0.85);
    const [ocp] = await rows([...decode, '--backends', 'mi300x', '--weights', 'f8e4m3']);
    expect(ocp).toMatchObject({ status: 'unsupported' });
    expect(ocp!.reason).toMatch(/--weights f8e4m3: CDNA3's \(gfx942\) FP8 MFMAs take the FNUZ encodings/);
  });

  it('policies and libraries that cannot run it refuse: megakernels, FNUZ on Hopper, e5m2 × e5m2 on cuBLASLt', async () => {
    const r = await rows([
      'compare',
      '--model',
      'qwen3-8b',
      '--batch',
      '1',
      '--decode',
      '16',
      '--json',
      '--backends',
      'h100',
      '--policies',
      'mirage,clusterfusion',
      '--weights',
      'f8e4m3',
    ]);
    for (const row of r) expect(row.status, row.policy).toBe('unsupported');
    expect(r[0]!.reason).toMatch(/mirage has no W8A8 FP8 GEMM \(--weights f8e4m3\)/);
    const [fnuz] = await rows([...decode, '--backends', 'h100', '--weights', 'f8e4m3fnuz']);
    expect(fnuz!.reason).toMatch(/OCP encodings/);
    const [e5] = await rows([...decode, '--backends', 'h100', '--weights', 'f8e5m2']);
    expect(e5!.reason).toMatch(/at least one e4m3 operand/);
  });

  it('fleet op: one byte per weight plus the scales; a refused type exits 2 with one line', async () => {
    const args = ['op', '--backend', 'h100', '--m', '16', '--n', '4096', '--k', '4096', '--json'];
    const t = JSON.parse((await run([...args, '--weights', 'f8e4m3'])).out);
    expect(t.weightBytes).toBe(4096 * 4096 + 4);
    const c = JSON.parse((await run([...args, '--weights', 'f8e4m3c'])).out);
    expect(c.weightBytes).toBe(4096 * 4096 + 4096 * 4);
    const bf16 = JSON.parse((await run(args)).out);
    expect(t.timeUs).toBeLessThan(bf16.timeUs);
    const bad = await run(['op', '--backend', 'mi300x', '--m', '1', '--n', '4096', '--k', '4096', '--weights', 'f8e4m3']);
    expect(bad.code).toBe(2);
    expect(bad.err.trim().split('\n')).toHaveLength(1);
    expect(bad.err).toMatch(/f8e4m3fnuz/);
  });

  it('fleet verify --weights f8e4m3: the FP8 schedule reproduces the FP8 reference; megakernels are unsupported', async () => {
    const r = await run(['verify', '--backend', 'h100', '--policy', 'kernel-per-op-graph,mirage', '--weights', 'f8e4m3c', '--json']);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.weightType).toBe('f8e4m3c');
    expect(j.results.map((x: { status: string }) => x.status)).toEqual(['pass', 'unsupported']);
    const bad = await run(['verify', '--backend', 'h100', '--policy', 'kernel-per-op-graph', '--weights', 'fp32']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--weights: 'fp32': fleet verify runs bf16 or W8A8 FP8 weights/);
  });

  it('a bad FP8 name is a one-line error naming --weights, exit 2', async () => {
    const r = await run(['compare', '--backends', 'h100', '--weights', 'f8e4m3ae5m2fnuz']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--weights: 'f8e4m3ae5m2fnuz' mixes OCP and FNUZ/);
    expect(r.err.trim().split('\n')).toHaveLength(1);
  });
});
