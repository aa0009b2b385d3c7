/**
 * The MPK suite: what the Mirage persistent-kernel runtime walkthrough states about how the
 * megakernel runs — launched once for the whole run, workers copying up to 16 task descriptors
 * per fetch — and FLEET's citation of MPK's result on the H100: 1.0–1.7× faster decode than
 * SGLang/vLLM. Fleet's stand-in for SGLang/vLLM is kernel-per-op-graph: the model's PyTorch
 * kernels replayed as one CUDA graph, as both engines replay theirs.
 */
import { buildDecodeGraph, loadModel, simulateGraph, type Backend, type ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import { row, speedupRow, type H100ValidationOptions } from './validation.js';

const WALKTHROUGH = 'Inside Mirage (3): Megakernel Persistent Runtime (/work/shared/seeds/004_78cc1371e6d13afc.txt)';
const FLEET_CITATION = 'FLEET (arXiv 2604.15379) §7 citing Mirage MPK: 1.0–1.7× over SGLang/vLLM on A100/H100 (/work/shared/seeds/000_bd04483489ffb65c.txt)';

/** Qwen3-8B decode (64 prompt + 1024 decode tokens, as FLEET runs it) at the batch sizes of a latency-bound server. */
const MODEL = 'qwen3-8b';
const PROMPT = 64;
const DECODE = 1024;
export const MPK_SPEEDUP_BATCHES = [1, 8, 16] as const;

/** Points the suite runs (progress bars). */
export function mpkValidationPoints(quick = false): number {
  return 2 + (quick ? 1 : MPK_SPEEDUP_BATCHES.length);
}

export function mpkValidation(backend: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const tick = opts.tick ?? (() => {});
  const model = loadModel(MODEL);
  const out: ValidationRow[] = [];
  const decode = (policy: string, batch: number) => ops.predictDecode(backend, model, { policy, batch, prompt: PROMPT, decode: DECODE, positions: 1 });

  // 1. One launch for the whole run: launches per token × decode tokens.
  tick('mirage launches');
  const m1 = decode('mirage', 1);
  out.push(
    row(
      `MPK launches its megakernel once for the run (Qwen3-8B, ${DECODE} decode tokens): launches per run`,
      'claim',
      1,
      m1.launchesPerToken * DECODE,
      'launches',
      0,
      WALKTHROUGH,
    ),
  );

  // 2. Descriptors per fetch: a worker copies up to 16 queued task descriptors at once.
  tick('mirage descriptor fetches');
  const mirage = ops.resolvePolicy(backend, 'mirage');
  if ('reason' in mirage) throw new Error(`mirage cannot run on ${backend.name}: ${mirage.reason}`);
  const g = buildDecodeGraph(model, { batch: 1, contextLen: PROMPT + DECODE / 2 });
  const tg = mirage.policy.compile(g, backend, mirage.schedule, { ...ops.backendCompileOptions(backend), layers: [0, 1, 2] });
  const r = simulateGraph(backend, tg, mirage.policy.runtime(backend, mirage.schedule));
  out.push(
    row(
      `MPK workers fetch up to 16 task descriptors at once: descriptors per fetch, mean over a Qwen3-8B batch-1 step (${r.descriptorFetches} fetches)`,
      'claim',
      [1, 16],
      r.descriptorsFetched / r.descriptorFetches,
      'descriptors',
      0,
      WALKTHROUGH,
    ),
  );

  // 3. MPK over SGLang/vLLM (stand-in: kernel-per-op-graph).
  for (const batch of opts.quick ? [1] : MPK_SPEEDUP_BATCHES) {
    tick(`mirage vs kernel-per-op-graph b${batch}`);
    const mpk = batch === 1 ? m1 : decode('mirage', batch);
    const base = decode('kernel-per-op-graph', batch);
    out.push(
      speedupRow(
        `Qwen3-8B bf16 batch ${batch}: TPOT speedup of mirage over kernel-per-op-graph (${base.tpotMs.toFixed(2)} → ${mpk.tpotMs.toFixed(2)} ms; kernel-per-op-graph stands in for SGLang/vLLM: the model's kernels replayed as one CUDA graph)`,
        [1.0, 1.7],
        base.tpotMs / mpk.tpotMs,
        10,
        FLEET_CITATION,
      ),
    );
  }
  return out.map((x) => ({ ...x, suite: 'mpk' }));
}
