import * as v from '@fleet/validation';
import { loadModel } from '@fleet/core';
const reg = await import('/work/wt-mpkcf/packages/cli/dist/backends.js');
const r = await reg.loadBackends(process.cwd());
const b = r.get('h100');
const base = loadModel('llama2-7b');
for (const heads of [32, 64, 128]) {
  const m = heads === 32 ? base : { ...base, name: `h${heads}`, numHeads: heads, numKvHeads: heads, hiddenSize: heads * 128 };
  console.log(heads, [2, 4, 8, 16].map((n) => v.clusterKernelUs(b, m, 4096, n).toFixed(1)).join(' '));
}
