import { describe, expect, it } from 'vitest';
import { main, type Io } from '../src/index.js';

describe('fleet validate', () => {
  it('rejects an unknown suite with the list of suites', async () => {
    let err = '';
    const io: Io = { out: () => {}, err: (s) => (err += s), errIsTty: false };
    expect(await main(['validate', '--suite', 'nope'], io)).toBe(2);
    expect(err).toMatch(/unknown suite 'nope' \(known: fleet-mi350/);
  });
});
