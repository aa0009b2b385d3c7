import { run } from './helpers.js';
import { describe, expect, it } from 'vitest';

const gemv = ['--m', '1', '--n', '4096', '--k', '4096'];
// wide enough that no backend splits K (every backend has ≤ 384 compute units)
const wide = ['--m', '1', '--n', '24576', '--k', '4096'];
const wideBytes = 24576 * 4096 * 2;

describe('fleet op', () => {
  it('prints { timeUs, hbmReadBytes, l2HitRate } for one linear op on every backend', async () => {
    for (const backend of ['h100', 'mi300x', 'mi350']) {
      const r = await run(['op', '--backend', backend, ...wide, '--json']);
      expect(r.code, backend).toBe(0);
      const j = JSON.parse(r.out);
      expect(j.backend).toBe(backend);
      expect(j.policy).toBe('kernel-per-op-graph');
      // the weights come from HBM once; the time cannot beat streaming them at the peak
      expect(j.hbmReadBytes).toBeGreaterThanOrEqual(wideBytes);
      expect(j.hbmReadBytes).toBeLessThan(1.1 * wideBytes);
      // the weight and the input, each byte once; the fabric carries at least what DRAM serves
      expect(j.uniqueReadBytes).toBeGreaterThanOrEqual(wideBytes);
      expect(j.hbmReadBytes).toBeGreaterThanOrEqual(j.uniqueReadBytes);
      expect(j.fabricReadBytes).toBeGreaterThanOrEqual(j.hbmReadBytes);
      expect(j.l2HitRate).toBeGreaterThanOrEqual(0);
      expect(j.l2HitRate).toBeLessThanOrEqual(1);
      expect(j.timeUs * 1e3).toBeGreaterThan(wideBytes / 8000);
    }
  });

  it('lands near our H100 GEMV measurement (gate+up, M = 1: 74.3 µs) and scales with the weight bytes', async () => {
    const gu = JSON.parse((await run(['op', '--backend', 'h100', '--m', '1', '--n', '24576', '--k', '4096', '--json'])).out);
    expect(Math.abs(gu.timeUs - 74.3) / 74.3).toBeLessThan(0.15);
    const o = JSON.parse((await run(['op', '--backend', 'h100', ...gemv, '--json'])).out);
    expect(gu.timeUs).toBeGreaterThan(3 * o.timeUs);
  });

  it('follows the policy: eager launches cost more than a graph node; a policy the backend cannot run is an input error', async () => {
    const graph = JSON.parse((await run(['op', '--backend', 'h100', ...gemv, '--json'])).out);
    const eager = JSON.parse((await run(['op', '--backend', 'h100', ...gemv, '--policy', 'kernel-per-op', '--json'])).out);
    expect(eager.timeUs).toBeGreaterThan(graph.timeUs);
    const mirage = await run(['op', '--backend', 'h100', ...gemv, '--policy', 'mirage', '--json']);
    expect(mirage.code).toBe(0);
    const bad = await run(['op', '--backend', 'h100', ...gemv, '--policy', 'fleet-mtile']);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/fleet-mtile is unsupported on h100: .*chiplet level/);
  });

  it('--weights u4g128 reads a quarter of the bf16 bytes plus all the scales, and is faster', async () => {
    const n = 4096;
    const k = 4096;
    const packed = (n * k * 4) / 8;
    const scales = Math.ceil(k / 128) * n * 2;
    for (const backend of ['h100', 'mi350']) {
      const dense = JSON.parse((await run(['op', '--backend', backend, ...gemv, '--json'])).out);
      const q = JSON.parse((await run(['op', '--backend', backend, ...gemv, '--weights', 'u4g128', '--json'])).out);
      expect(dense.weights).toBe('bf16');
      expect(dense.weightBytes).toBe(n * k * 2);
      expect(q.weights).toBe('u4g128');
      expect(q.weightBytes).toBe(packed + scales);
      // every packed code and every scale comes from HBM, once; beyond them only the activation
      expect(q.hbmReadBytes).toBeGreaterThanOrEqual(packed + scales);
      expect(q.hbmReadBytes - packed - scales).toBeLessThanOrEqual(16 * k * 2); // its padded rows at most
      expect(q.hbmReadBytes).toBeLessThanOrEqual(dense.hbmReadBytes / 4 + scales + 16 * k * 2);
      expect(q.hbmReadBytes / dense.hbmReadBytes).toBeGreaterThan(0.25);
      expect(q.hbmReadBytes / dense.hbmReadBytes).toBeLessThan(0.27);
      expect(q.timeUs).toBeLessThan(dense.timeUs);
    }
  });

  it('--weights takes any low-bit type: fewer bits, fewer bytes', async () => {
    const bytes = async (w: string) => JSON.parse((await run(['op', '--backend', 'h100', ...gemv, '--weights', w, '--json'])).out).hbmReadBytes as number;
    const [u2, u4, i6, f6, e4m3] = await Promise.all(['u2g64', 'u4g128', 'i6g128', 'f6e3m2g128', 'e4m3g128'].map(bytes));
    expect(u2).toBeLessThan(u4);
    expect(u4).toBeLessThan(i6);
    expect(f6).toBe(i6);
    expect(i6).toBeLessThan(e4m3);
    const table = await run(['op', '--backend', 'h100', ...gemv, '--weights', 'f6e3m2g128']);
    expect(table.out).toMatch(/linear m=1 n=4096 k=4096 f6e3m2g128: /);
  });

  it('rejects an unknown or unmodelled weight type in one line, exit 2', async () => {
    for (const [w, pattern] of [
      ['u4g100', /--weights: group 100/],
      ['int4', /--weights: unknown weight type 'int4'/],
      ['fp32', /--weights: 'fp32'/],
    ] as const) {
      const r = await run(['op', '--backend', 'h100', ...gemv, '--weights', w]);
      expect(r.code, w).toBe(2);
      expect(r.err).toMatch(pattern);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('rejects bad shapes with exit code 2', async () => {
    for (const args of [
      ['--m', '0', '--n', '8', '--k', '8'],
      ['--m', '1', '--n', 'x', '--k', '8'],
      ['--m', '1', '--n', '8'],
    ]) {
      const r = await run(['op', '--backend', 'h100', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
    }
  });
});

describe('fleet op --op attention-module', () => {
  it('times layer 0’s QKV projection + attention + output projection under the policy and as kernel-per-op-graph kernels', { timeout: 120_000 }, async () => {
    const args = ['op', '--backend', 'h100', '--op', 'attention-module', '--policy', 'clusterfusion', '--model', 'llama2-7b', '--context', '1024', '--json'];
    const on = JSON.parse((await run(args)).out);
    expect(on.op).toBe('attention-module');
    expect(on.kernels).toBe(1);
    expect(on.unfusedKernels).toBeGreaterThan(1);
    expect(on.speedup).toBeCloseTo(on.unfusedUs / on.moduleUs, 2);
    const off = JSON.parse((await run([...args, '--dsmem', 'off'])).out);
    expect(off.overrides).toEqual({ dsmem: false });
    expect(off.moduleUs).toBeGreaterThan(on.moduleUs);
    expect(off.unfusedUs).toBe(on.unfusedUs);
  });

  it('refuses linear flags, a cluster size that is not offered, and a persistent policy, with exit code 2', async () => {
    const base = ['op', '--backend', 'h100', '--op', 'attention-module'];
    const m = await run([...base, '--m', '1']);
    expect(m.code).toBe(2);
    expect(m.err).toMatch(/--m applies to --op linear/);
    const size = await run([...base, '--policy', 'clusterfusion', '--cluster-size', '3']);
    expect(size.code).toBe(2);
    expect(size.err).toMatch(/--cluster-size/);
    const mpk = await run([...base, '--policy', 'mirage']);
    expect(mpk.code).toBe(2);
    expect(mpk.err).toMatch(/persistent kernel/);
    const linear = await run(['op', '--backend', 'h100', '--n', '8', '--k', '8']);
    expect(linear.code).toBe(2);
    expect(linear.err).toMatch(/--m is required/);
  });
});
