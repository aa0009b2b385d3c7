/**
 * The tensor-parallel suite: Qwen3-8B and Qwen3-32B decode steps sharded over 2 and 4 H200s of
 * one HGX board (bench/device/tp.py, measured/h200x4-tp-ours.json): Megatron's layout with an
 * NCCL all-reduce after each row-parallel GEMM, captured in one CUDA graph. PyTorch's
 * `dist.all_reduce` is NCCL alone — no serving engine's custom all-reduce — so the node is
 * priced with its library's algorithms only. Every row is a prediction.
 */
import type { Backend, ValidationRow } from '@fleet/core';
import * as ops from '@fleet/ops';
import { qwen3Dense } from '../h100/decode.js';
import { GOAL_PCT, row, type H100ValidationOptions } from '../h100/validation.js';
import measured from './measured/h200x4-tp-ours.json' with { type: 'json' };

const SRC = 'ours: bench/device/tp.py on four H200s, 2026-11-27 (packages/validation/src/h200/measured/h200x4-tp-ours.json)';

function tpRows(quick: boolean) {
  return measured.rows.filter((r) => !quick || (r.model === 'qwen3-8b' && r.batch === 1 && r.kvLen === 1024));
}

export function h200TpValidationPoints(quick = false): number {
  return tpRows(quick).length;
}

export function h200TpValidation(device: Backend, opts: H100ValidationOptions = {}): ValidationRow[] {
  const backend = ops.withLibraryCollectivesOnly(device);
  const tick = opts.tick ?? (() => {});
  return tpRows(opts.quick ?? false).map((r) => {
    tick(`decode ${r.model} tp${r.tp} b${r.batch} kv${r.kvLen}`);
    const p = ops.predictDecode(backend, qwen3Dense(r.model), {
      policy: 'kernel-per-op-graph',
      batch: r.batch,
      prompt: r.kvLen - 1,
      decode: 1,
      positions: 1,
      tp: r.tp,
    });
    return {
      ...row(
        `${r.model} decode TPOT over ${r.tp} H200s (NCCL all-reduce), one CUDA graph, SDPA FlashAttention-2 split-KV, batch ${r.batch}, KV ${r.kvLen}`,
        'measurement',
        r.tpotMs,
        p.tpotMs,
        'ms',
        GOAL_PCT,
        SRC,
      ),
      suite: 'h200-tp',
    };
  });
}
