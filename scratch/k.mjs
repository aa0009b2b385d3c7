import { loadModel, buildDecodeGraph, scheduleCounts } from '@fleet/core';
import * as ops from '@fleet/ops';
const reg = await import('/work/wt-mpkcf/packages/cli/dist/backends.js');
const r = await reg.loadBackends(process.cwd());
const b = r.get('mi350');
const g = buildDecodeGraph(loadModel('qwen3-8b'), { batch: 1, contextLen: 500 });
const p = ops.resolvePolicy(b, 'kernel-per-op-graph');
for (const layers of [[0], [0, 1], [0, 1, 2]]) {
  const tg = p.policy.compile(g, b, p.schedule, { ...ops.backendCompileOptions(b), layers });
  console.log(
    layers,
    scheduleCounts(tg)
      .map((c) => c.launches)
      .join(' '),
  );
  console.log(
    tg.kernels
      .filter((k) => k.layer === layers.length - 1 || k.layer === 36)
      .map((k) => k.name)
      .slice(-12)
      .join(' | '),
  );
}
console.log(ops.sameLayerOps(g, 1, 2), ops.sameLayerOps(g, 0, 2), ops.sameLayerOps(g, 1, 35));
const tg = p.policy.compile(g, b, p.schedule, { ...ops.backendCompileOptions(b), layers: [3, 4, 5] });
console.log(
  scheduleCounts(tg)
    .map((c) => c.launches)
    .join(' '),
);
