const root = process.argv[2];
const hop = await import(`${root}/packages/family-hopper/dist/index.js`);
const fs = await import('node:fs');
const d = JSON.parse(fs.readFileSync('/work/wt-mpkcf/packages/validation/src/h100/measured/h100-e2e-ours.json'));
const out = [];
for (const m of d.collectives.rows) {
  if (m.grid !== 'one-cluster' || !(m.bytes === 4096 || m.bytes === 32768) || m.onChip) continue;
  const c = hop.collectiveModel(m.op, false);
  const p = c.latencyNs(m.bytes, m.cluster) / 1000;
  out.push(`${m.op} N${m.cluster} ${m.bytes}B meas ${m.collectiveUs.toFixed(2)} pred ${p.toFixed(2)} err ${((p / m.collectiveUs - 1) * 100).toFixed(1)}%`);
}
console.log(out.join('\n'));
