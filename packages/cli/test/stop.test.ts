/** Long comparisons say up front how much work they are, and stop cleanly: what finished is printed. */
import { describe, expect, it } from 'vitest';
import { main, type Io } from '../src/index.js';

async function runWith(args: string[], signal: AbortSignal) {
  let out = '';
  let err = '';
  const io: Io = { out: (s) => (out += s), err: (s) => (err += s), errIsTty: false, signal };
  const code = await main(args, io);
  return { code, out, err };
}

describe('stopping a comparison', () => {
  it("the README's chunked prefill says up front that it is long; an interrupt prints what finished and exits 130", async () => {
    const ctl = new AbortController();
    ctl.abort();
    const r = await runWith(
      ['compare', '--phase', 'prefill', '--prompt', '8192', '--chunk', '2048', '--backends', 'h100', '--policies', 'kernel-per-op,kernel-per-op-graph'],
      ctl.signal,
    );
    expect(r.code).toBe(130);
    expect(r.err).toMatch(
      /^fleet: 6 configurations on \d+ threads?; steps of up to 65536 tokens take minutes each \(use --chunk, a smaller --batch, or --time-limit\)\n/,
    );
    expect(r.err).toMatch(/fleet: interrupted: 0 of 6 configurations finished \(printed above\)\n$/);
    // The table's heading is still printed: the output is a (here empty) comparison, not nothing.
    expect(r.out).toMatch(/^qwen3-8b: /);
  });

  it('--time-limit takes whole seconds', async () => {
    const r = await runWith(['compare', '--time-limit', '0'], new AbortController().signal);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--time-limit: '0' is not an integer in 1\.\./);
  });
});
