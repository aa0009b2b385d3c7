const v = await import('/work/main/packages/validation/dist/index.js');
const { loadModel } = await import('/work/main/packages/core/dist/index.js');
const reg = await import('/work/main/packages/cli/dist/backends.js');
const r = await reg.loadBackends('/work/main');
const b = r.get('h100');
const base = loadModel('llama2-7b');
for (const heads of [32, 64, 128]) {
  const m = heads === 32 ? base : { ...base, name: `h${heads}`, numHeads: heads, numKvHeads: heads, hiddenSize: heads * 128 };
  console.log(heads, [2, 4, 8, 16].map((n) => v.clusterKernelUs(b, m, 4096, n).toFixed(1)).join(' '));
}
const on = v.clusterFusionTpotMs(b, base, 1, 4096, 4, false),
  off = v.clusterFusionTpotMs(b, base, 1, 4096, 4, true);
console.log('dsmem off/on', on, off, off / on);
