import { defineConfig } from 'vitest/config';

// Simulation tests do real work; on a loaded 2-core machine a few take seconds. A generous
// per-test timeout keeps them from failing on load rather than on results.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], testTimeout: 120_000, hookTimeout: 300_000 } });
