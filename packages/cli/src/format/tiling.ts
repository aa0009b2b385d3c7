import type { CompareRow } from '../compare.js';

/**
 * FLEET's cooperative weight tiling beside Mirage's CU-tasks at each tensor-parallel
 * degree: with TP every rank's GEMMs are narrower (QKV, gate+up by columns, O and down by
 * K), so each chiplet-task's weight partition shrinks by the TP degree while the batch tiles
 * that share it stay — the comparison shows how the benefit moves with TP.
 */
export interface TilingBenefit {
  backend: string;
  phase: string;
  batch: number;
  promptTokens: number;
  tp: number;
  /** Mirage TPOT / FLEET M-tile TPOT. */
  speedup: number;
  /** L2 hit rate of FLEET M-tile minus Mirage's, points. */
  l2HitGainPt: number;
}

export function tilingBenefits(rows: readonly CompareRow[]): TilingBenefit[] {
  const out: TilingBenefit[] = [];
  for (const f of rows) {
    if (f.policy !== 'fleet-mtile' || f.status !== 'ok' || f.tpotMs === undefined) continue;
    const m = rows.find(
      (r) =>
        r.policy === 'mirage' &&
        r.status === 'ok' &&
        r.backend === f.backend &&
        r.batch === f.batch &&
        (r.tp ?? 1) === (f.tp ?? 1) &&
        r.promptTokens === f.promptTokens &&
        r.phase === f.phase,
    );
    if (!m || m.tpotMs === undefined) continue;
    out.push({
      backend: f.backend,
      phase: f.phase,
      batch: f.batch,
      promptTokens: f.promptTokens,
      tp: f.tp ?? 1,
      speedup: Math.round((m.tpotMs / f.tpotMs) * 1000) / 1000,
      l2HitGainPt: Math.round(((f.l2HitRate ?? 0) - (m.l2HitRate ?? 0)) * 1000) / 10,
    });
  }
  return out;
}

/** One line per (backend, batch): the speedup at each TP degree. */
export function formatTilingBenefits(b: readonly TilingBenefit[]): string {
  if (b.length === 0) return '';
  const groups = new Map<string, TilingBenefit[]>();
  for (const x of b) {
    const k = `${x.backend} batch ${x.batch}`;
    groups.set(k, [...(groups.get(k) ?? []), x]);
  }
  const lines = [...groups].map(
    ([k, xs]) =>
      `  ${k}: ${xs.map((x) => `tp ${x.tp} ${x.speedup.toFixed(2)}× (L2 hit ${x.l2HitGainPt >= 0 ? '+' : ''}${x.l2HitGainPt.toFixed(1)} pt)`).join(', ')}`,
  );
  return `\nOne mechanism, not the overall ranking: FLEET M-tile's cooperative tiling against Mirage's CU-tasks (Mirage TPOT / FLEET M-tile TPOT) by tensor parallelism:\n${lines.join('\n')}\n`;
}
