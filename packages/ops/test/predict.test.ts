import { describe, expect, it } from 'vitest';
import { loadModel, setSimulationMemo } from '@fleet/core';
import { predictDecode } from '../src/index.js';
import { mi350Backend } from './helpers.js';

const backend = mi350Backend();
const model = loadModel('qwen3-8b');
const base = { batch: 1, prompt: 64, decode: 1024, layers: 2 };

describe('predictDecode', () => {
  it('is deterministic', () => {
    // Simulated twice, not the second time remembered.
    setSimulationMemo(false);
    try {
      const a = predictDecode(backend, model, { ...base, policy: 'fleet-mtile' });
      const b = predictDecode(backend, model, { ...base, policy: 'fleet-mtile' });
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    } finally {
      setSimulationMemo(true);
    }
  });

  it('gives the same prediction for a policy whose graph equals one simulated just before', () => {
    // FLEET's tile orders agree at batch 1 (one M tile): the second is a remembered simulation.
    const mtile = predictDecode(backend, model, { ...base, policy: 'fleet-mtile' });
    setSimulationMemo(false);
    try {
      const fresh = predictDecode(backend, model, { ...base, policy: 'fleet-msplit' });
      setSimulationMemo(true);
      const remembered = predictDecode(backend, model, { ...base, policy: 'fleet-msplit' });
      expect(JSON.stringify(remembered)).toBe(JSON.stringify(fresh));
      expect(remembered.tpotMs).toBe(mtile.tpotMs);
    } finally {
      setSimulationMemo(true);
    }
  });

  it('reads at least the model weights from HBM per token at batch 1', () => {
    const r = predictDecode(backend, model, { ...base, policy: 'mirage' });
    const weights = 36 * 368 * 2 ** 20 + 151936 * 4096 * 2;
    expect(r.status).toBe('ok');
    expect(r.hbmReadBytes).toBeGreaterThan(0.98 * weights);
    // TPOT cannot beat streaming those bytes at the achievable HBM bandwidth.
    expect(r.tpotMs * 1e6).toBeGreaterThan(weights / backend.topology.memory.hbm.achievableBandwidthBytesPerNs);
  });

  it('charges launches: eager kernel-per-op is slower than the same kernels in a graph', () => {
    const eager = predictDecode(backend, model, { ...base, policy: 'kernel-per-op' });
    const graph = predictDecode(backend, model, { ...base, policy: 'kernel-per-op-graph' });
    expect(eager.tpotMs).toBeGreaterThan(graph.tpotMs);
    expect(eager.launchesPerToken).toBeGreaterThan(200);
  });

  it('FLEET needs far fewer fences than per-task signalling', () => {
    const fleet = predictDecode(backend, model, { ...base, policy: 'fleet-mtile' });
    const mirage = predictDecode(backend, model, { ...base, policy: 'mirage' });
    expect(fleet.fencesPerToken * 5).toBeLessThan(mirage.fencesPerToken);
    expect(fleet.tasksPerLayer).toBeLessThan(mirage.tasksPerLayer);
  });

  it('reports a policy the backend cannot run as unsupported, with its reason', () => {
    const r = predictDecode(backend, model, { ...base, policy: 'clusterfusion' });
    expect(r.status).toBe('unsupported');
    expect(r.reason).toMatch(/DSMEM|cluster/);
  });
});
