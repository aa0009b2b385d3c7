/**
 * ClusterFusion's fused decode block for DeepSeek's multi-head latent attention (weight
 * absorption, one shared latent "KV head"): per layer one kernel of thread-block clusters, one
 * cluster of N CTAs per attention head (and per share of the requests where clusters outnumber
 * heads). The SplitToken dataflow of the MHA block carries over with the latent in place of
 * the head's K/V. Per CTA j of the cluster of head h, for its requests:
 *   1. its 1/N of head h's q rows (q_proj, or q_a → norm → q_b under a q LoRA) and of the new
 *      token's latent and rotary key (kv_a — every cluster computes the shared latent itself,
 *      its re-reads of W_kv_a hit L2, so no cluster waits on another), and its 1/N of the
 *      latent columns of W_UK[h] (q_nope → q_lat);
 *   2. ClusterGather of q_lat and of the new latent (+ rope) slices (DSMEM), RoPE and the
 *      latent norm in registers; CTA 0 of head 0's cluster appends the latent to the cache;
 *   3. attention over its 1/N of the cached positions, reading each position's latent
 *      (rank + rope values, shared by all heads) once;
 *   4. ClusterReduce of the softmax max and sum (one fp32 per request) and of the latent
 *      output (rank values per request);
 *   5. its 1/N of W_UV[h]'s rows (latent → v) and of W_o's rows for head h's columns, added
 *      atomically into the output rows.
 * DSMEM traffic follows the seeds' formulas: Gather(size, N) = size·(2^(log2(N/2)+1) − 1)·N,
 * Reduce(size, N) = size·log2(N)·N.
 */
import {
  collectiveRounds,
  inputError,
  type AttentionOp,
  type ClusterCollectiveKind,
  type GroupedLinearOp,
  type LinearOp,
  type OpGraph,
  type Region,
  type Task,
  type Tile,
  type Topology,
} from '@fleet/core';
import { KV_CHUNK } from '../decompose/attention.js';
import { batchRows, collectiveNs, ctaTask, residentClusters, type ClusterFusionOptions, type ClusterMessages } from './cluster-dataflow.js';

/** Ops of an MLA layer the fused kernel replaces. */
export const MLA_FUSED = ['q_proj', 'q_a_proj', 'q_a_norm', 'q_b_proj', 'kv_a_proj', 'kv_a_norm', 'q_absorb', 'v_absorb'];

const EL = 2;
const FP32 = 4;

/** Per-CTA message sizes of one head's cluster serving `requests` requests (SplitToken over the latent). */
export function mlaClusterMessages(op: AttentionOp, clusterSize: number, requests = op.batch): ClusterMessages {
  const lat = op.latent!;
  const width = lat.rank + lat.ropeDim;
  // q_lat and the new latent, each rank + rope wide, assembled from N slices.
  return { gather: (requests * 2 * width * EL) / clusterSize, reduces: [requests * FP32, requests * FP32, requests * lat.rank * EL] };
}

/** DSMEM bytes one head's cluster moves per layer (seeds §3 traffic formulas). */
export function mlaClusterTrafficBytes(op: AttentionOp, clusterSize: number): number {
  const m = mlaClusterMessages(op, clusterSize);
  const traffic = (kind: ClusterCollectiveKind, bytes: number) => collectiveRounds(kind, bytes, clusterSize).reduce((s, r) => s + r.sendBytes * clusterSize, 0);
  return traffic('gather', m.gather) + m.reduces.reduce((s, b) => s + traffic('reduce', b), 0);
}

export function mlaFusedTasks(
  graph: OpGraph,
  layer: number,
  topology: Topology,
  opts: ClusterFusionOptions,
  N: number,
  bufId: (name: string) => number,
): Omit<Task, 'id' | 'kernel'>[] {
  const p = `L${layer}.`;
  const find = <T>(id: string) => graph.ops.find((o) => o.id === p + id) as T | undefined;
  const att = find<AttentionOp>('attention');
  const kvA = find<LinearOp>('kv_a_proj');
  const qProj = find<LinearOp>('q_proj');
  const qA = find<LinearOp>('q_a_proj');
  const qB = find<LinearOp>('q_b_proj');
  const uk = find<GroupedLinearOp>('q_absorb');
  const uv = find<GroupedLinearOp>('v_absorb');
  const oProj = find<LinearOp>('o_proj');
  if (!att?.latent || !kvA || !uk || !uv || !oProj || !(qProj || (qA && qB))) throw new Error(`clusterfusion: layer ${layer} lacks the MLA projections`);
  const { heads, kvLen, batch } = att;
  const { rank, ropeDim } = att.latent;
  const width = rank + ropeDim;
  const hidden = kvA.k;
  const qDim = (qProj ?? qB)!.n / heads;
  const nope = uk.k;
  const vDim = uv.n;
  if (rank % N !== 0 || hidden % N !== 0 || vDim % N !== 0)
    throw inputError(`clusterfusion: cluster size ${N} must divide the latent rank ${rank}, v dim ${vDim} and hidden ${hidden}`);
  const resident = residentClusters(topology, opts, N);
  const S = Math.max(1, Math.min(batch, opts.requestSplit ?? Math.floor(resident / heads)));
  const units = heads * S;
  const C = Math.min(units, resident);
  const b = {
    x: bufId('x'),
    q: qProj ? bufId(qProj.weight) : bufId(qB!.weight),
    qa: qA ? bufId(qA.weight) : -1,
    kva: bufId(kvA.weight),
    uk: bufId(uk.weight),
    uv: bufId(uv.weight),
    cache: bufId(att.kCache),
    wo: bufId(oProj.weight),
    o: bufId(oProj.outputs[0]!),
  };
  const rowsOf = (buffer: number, row0: number, rows: number, rowBytes: number): Region => ({
    buffer,
    offset: row0 * rowBytes,
    bytes: rows * rowBytes,
    policy: 'default',
  });
  const out: Omit<Task, 'id' | 'kernel'>[] = [];
  for (let c = 0; c < C; c++) {
    for (let j = 0; j < N; j++) {
      const tiles: Tile[] = [];
      for (let u = c; u < units; u += C) {
        const h = u % heads;
        const share = Math.floor(u / heads);
        const r0 = Math.floor((share * batch) / S);
        const r1 = Math.floor(((share + 1) * batch) / S);
        const nb = r1 - r0;
        const m = mlaClusterMessages(att, N, nb);
        const gatherNs = collectiveNs('gather', m.gather, N, topology, opts);
        const reduceNs = m.reduces.reduce((s, bytes) => s + collectiveNs('reduce', bytes, N, topology, opts), 0);
        // 1. projections: q rows of head h, the latent's rows, W_UK[h]'s latent columns — 1/N each
        const qRows = qDim / N;
        const reads: Region[] = [batchRows(b.x, r0 * hidden * EL, hidden * EL, nb, hidden * EL)];
        let flops = 0;
        if (qProj) {
          reads.push(rowsOf(b.q, h * qDim + j * qRows, qRows, hidden * EL));
          flops += 2 * qRows * hidden * nb;
        } else {
          const ql = qA!.n;
          reads.push(rowsOf(b.qa, (j * ql) / N, ql / N, hidden * EL), rowsOf(b.q, h * qDim + j * qRows, qRows, ql * EL));
          flops += 2 * (ql / N) * hidden * nb + 2 * qRows * ql * nb;
        }
        reads.push(rowsOf(b.kva, (j * width) / N, width / N, hidden * EL));
        reads.push({ buffer: b.uk, offset: (h * rank + (j * rank) / N) * nope * EL, bytes: (rank / N) * nope * EL, policy: 'default' });
        flops += 2 * (width / N) * hidden * nb + 2 * (rank / N) * nope * nb;
        tiles.push({ reads, writes: [], flops, unit: 'matrix' });
        // 2. gather q_lat and the new latent; RoPE and the latent norm in registers
        tiles.push({ reads: [], writes: [], flops: 8 * 2 * width * nb, unit: 'vector', ...(gatherNs > 0 ? { fixedNs: gatherNs } : {}) });
        // 3. attention over this CTA's positions of each request's latent cache: one tile per
        // request streamed in KV_CHUNK steps (the TMA double buffer pays the latency once)
        for (let r = r0; r < r1; r++) {
          const t0 = Math.floor((j * kvLen) / N);
          const t1 = Math.floor(((j + 1) * kvLen) / N);
          const len = t1 - t0;
          const tile: Tile = {
            reads: len > 0 ? [{ buffer: b.cache, offset: (r * kvLen + t0) * width * EL, bytes: len * width * EL, policy: 'default' }] : [],
            writes: [],
            flops: 2 * len * width + 2 * len * rank,
            unit: 'matrix',
          };
          const steps = Math.ceil(len / KV_CHUNK);
          if (steps > 1) tile.steps = steps;
          if (j === 0 && h === 0 && share === 0 && r === r0) {
            // the new latent, appended once per request
            tile.writes.push({
              buffer: b.cache,
              offset: (r0 * kvLen + kvLen - 1) * width * EL,
              bytes: width * EL,
              rows: nb,
              strideBytes: kvLen * width * EL,
              policy: 'default',
            });
          }
          if (len > 0 || tile.writes.length > 0) tiles.push(tile);
        }
        // 4. softmax statistics and latent output reductions
        if (reduceNs > 0) tiles.push({ reads: [], writes: [], flops: 4 * rank * nb, unit: 'vector', fixedNs: reduceNs });
        // 5. W_UV[h] rows (latent → v) and W_o's rows for head h's v columns, added atomically
        const vRows = vDim / N;
        const oRows = hidden / N;
        tiles.push({
          reads: [
            { buffer: b.uv, offset: (h * vDim + j * vRows) * rank * EL, bytes: vRows * rank * EL, policy: 'default' },
            {
              buffer: b.wo,
              offset: (j * oRows * heads * vDim + h * vDim) * EL,
              bytes: vDim * EL,
              rows: oRows,
              strideBytes: heads * vDim * EL,
              policy: 'default',
            },
          ],
          writes: [batchRows(b.o, (r0 * hidden + j * oRows) * EL, oRows * EL, nb, hidden * EL)],
          flops: 2 * vRows * rank * nb + 2 * oRows * vDim * nb,
          unit: 'matrix',
        });
      }
      out.push(ctaTask(layer, c, j, tiles, opts.pipeline));
    }
  }
  return out;
}
