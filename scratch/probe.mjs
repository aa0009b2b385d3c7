import * as v from '@fleet/validation';
import * as hop from '@fleet/family-hopper';
import { loadModel } from '@fleet/core';
const reg = await import('/work/wt-mpkcf/packages/cli/dist/backends.js');
const r = await reg.loadBackends(process.cwd());
const b = r.get('h100');
const llama = loadModel('llama2-7b');
for (const n of [2, 4, 8, 16]) {
  console.log('N', n, 'on', v.clusterKernelUs?.(b, llama, 4096, n).toFixed(2), 'off', v.clusterKernelUs?.(b, llama, 4096, n, true).toFixed(2));
}
for (const kind of ['reduce', 'gather'])
  for (const on of [true, false]) {
    const m = hop.collectiveModel(kind, on);
    console.log(kind, on, [256, 1024, 4096].map((B) => m.latencyNs(B, 4).toFixed(0)).join(' '));
  }
