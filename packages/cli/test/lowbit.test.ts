import { describe, expect, it } from 'vitest';
import { run } from './helpers.js';

// Tilus's Figure 13 shape (Llama-3.3-70B gate+up: N = 57344, K = 8192). A grid of small
// low-bit tiles at M = 1024 once overflowed the call stack (a spread of every partial sum).
describe('low-bit weights at any M', () => {
  it('fleet op: a u4g128 linear at M = 1024 runs, reads fewer weight bytes than bf16 and names no internal error', async () => {
    const args = ['op', '--backend', 'h100', '--op', 'linear', '--m', '1024', '--n', '57344', '--k', '8192', '--json'];
    const q = await run([...args, '--weights', 'u4g128']);
    expect(q.err).not.toMatch(/internal error|call stack/);
    expect(q.code).toBe(0);
    const j = JSON.parse(q.out);
    expect(j.weights).toBe('u4g128');
    // codes (4 bits) plus bf16 scales per 128: a quarter of bf16 and 1/64 more, the codes
    // padded to whole pre-layout tiles of the chosen kernel's width (under 1% here)
    const exact = 57344 * 8192 * 0.5 + 64 * 57344 * 2;
    expect(j.weightBytes).toBeGreaterThanOrEqual(exact);
    expect(j.weightBytes).toBeLessThan(exact * 1.01);
    expect(j.timeUs).toBeGreaterThan(0);
  });

  it('fleet op: at M = 16 a Tilus-style u4g128 GEMM beats the bf16 GEMM by more than 2×', async () => {
    const args = ['op', '--backend', 'h100', '--op', 'linear', '--m', '16', '--n', '57344', '--k', '8192', '--json'];
    const q = JSON.parse((await run([...args, '--weights', 'u4g128'])).out);
    const d = JSON.parse((await run(args)).out);
    expect(d.timeUs / q.timeUs).toBeGreaterThan(2);
  });

  it('fleet compare: u4g128 prefill of 2048 tokens runs on the h100', async () => {
    const r = await run([
      'compare',
      '--backends',
      'h100',
      '--phase',
      'prefill',
      '--prompt',
      '2048',
      '--weights',
      'u4g128',
      '--batch',
      '1',
      '--policies',
      'kernel-per-op-graph',
      '--json',
    ]);
    expect(r.err).not.toMatch(/internal error|call stack/);
    expect(r.code).toBe(0);
    const row = JSON.parse(r.out).results[0];
    expect(row.weights).toBe('u4g128');
    expect(row.status).toBe('ok');
    expect(row.ttftMs).toBeGreaterThan(0);
  });
});
