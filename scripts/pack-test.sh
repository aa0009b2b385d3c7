#!/usr/bin/env bash
# Pack Fleet's packages exactly as `npm publish` would, install the tarballs into an empty
# project and run the CLI there. Catches what the workspace hides: a file missing from
# `files`, a broken `exports`/`bin`/`types`, a dependency that only resolves inside the
# monorepo, a third-party backend that is not discovered once installed.
#
#   scripts/pack-test.sh              # FLEET_PACK_KEEP=1 keeps the temporary directory
#
# Third-party dependencies come from the npm registry (or the npm cache).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/fleet-pack-test.XXXXXX")"
cleanup() {
  if [[ -n "${FLEET_PACK_KEEP:-}" ]]; then echo "pack test: kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# Every package of packages/ (the CLI needs them all); the B200 example is the third-party backend,
# the N-major example the third-party policy (an extension: not a workspace, so the repository's
# own comparisons stay Fleet's policies).
PACKAGES=(packages/*/ examples/backend-b200 examples/policy-nmajor)
PACKAGES=("${PACKAGES[@]%/}")

step() { printf '\n== pack test: %s\n' "$*" >&2; }
fail() { printf 'pack test FAILED: %s\n' "$*" >&2; exit 1; }
started=$SECONDS

step "lockfile: every optional platform binary locked; npm ci --dry-run accepts it"
node "$ROOT/scripts/check-lockfile.mjs" --npm || fail "npm ci would reject package-lock.json"

step "build and pack ${#PACKAGES[@]} packages (scripts/pack.sh, what users outside the repository run)"
bash "$ROOT/scripts/pack.sh" "$WORK/tarballs" examples/backend-b200 examples/policy-nmajor
[[ "$(ls "$WORK"/tarballs/*.tgz | wc -l)" -eq ${#PACKAGES[@]} ]] || fail "scripts/pack.sh made $(ls "$WORK"/tarballs/*.tgz | wc -l) tarballs, not ${#PACKAGES[@]}"
for t in "$WORK"/tarballs/*.tgz; do
  list="$(tar -tzf "$t")"
  for need in package/package.json package/README.md package/dist/index.js package/dist/index.d.ts; do
    grep -qx "$need" <<<"$list" || fail "$(basename "$t") lacks ${need#package/}"
  done
  if grep -q 'tsbuildinfo$' <<<"$list"; then fail "$(basename "$t") ships a .tsbuildinfo"; fi
  printf '  %-44s %6s KiB, %3d files\n' "$(basename "$t")" "$(( $(wc -c <"$t") / 1024 ))" "$(wc -l <<<"$list")" >&2
done

step "install the tarballs into an empty project"
mkdir "$WORK/project"
cd "$WORK/project"
printf '{ "name": "fleet-pack-test", "version": "0.0.0", "private": true, "type": "module" }\n' >package.json
npm install --no-audit --no-fund --prefer-offline --loglevel=error "$WORK"/tarballs/*.tgz
for p in "${PACKAGES[@]}"; do
  name="$(node -p "require('$ROOT/$p/package.json').name")"
  [[ -d "node_modules/$name" && ! -L "node_modules/$name" ]] || fail "$name is not installed from its tarball"
done
[[ "$(find node_modules -path '*/@fleet/core/package.json' | wc -l)" -eq 1 ]] || fail "more than one copy of @fleet/core"
# The installed bin itself (npx may add its own warnings to stderr).
fleet=./node_modules/.bin/fleet
[[ -x "$fleet" ]] || fail "@fleet/cli installed no 'fleet' bin"

step "fleet backends --json"
"$fleet" backends --json >backends.json
node --input-type=module -e '
  import { readFileSync } from "node:fs";
  const { backends } = JSON.parse(readFileSync("backends.json", "utf8"));
  const names = backends.map((b) => b.name).sort();
  const want = ["a100", "b200", "h100", "h200", "l40s", "mi300x", "mi350"];
  if (JSON.stringify(names) !== JSON.stringify(want)) throw new Error(`backends: ${names} (want ${want})`);
  console.error(backends.map((b) => `  ${b.name.padEnd(8)} ${b.topology}`).join("\n"));
'

step "fleet compare"
"$fleet" compare --json --model llama2-7b --backends b200,h100 --policies kernel-per-op-graph,fleet-mtile \
  --batch 1 --decode 8 --sample-layers 1 >compare.json
node --input-type=module -e '
  import { readFileSync } from "node:fs";
  const { schemaVersion, results } = JSON.parse(readFileSync("compare.json", "utf8"));
  const row = (b, p) => results.find((r) => r.backend === b && r.policy === p) ?? {};
  if (schemaVersion !== 1 || results.length !== 4) throw new Error(`compare: ${results.length} rows, schemaVersion ${schemaVersion}`);
  for (const [b, p] of [["b200", "kernel-per-op-graph"], ["b200", "fleet-mtile"], ["h100", "kernel-per-op-graph"]]) {
    const r = row(b, p);
    if (r.status !== "ok" || !(r.tpotMs > 0)) throw new Error(`compare: ${b} ${p}: ${JSON.stringify(r)}`);
    console.error(`  ${b.padEnd(5)} ${p.padEnd(20)} TPOT ${r.tpotMs} ms`);
  }
  if (row("h100", "fleet-mtile").status !== "unsupported") throw new Error("compare: h100 fleet-mtile should be unsupported");
'

step "an installed policy package: fleet compare runs its policy, fleet backends lists it"
"$fleet" compare --json --backends mi350,h100 --policies fleet-mtile,fleet-nmajor \
  --batch 32 --decode 8 --sample-layers 1 >policy.json
"$fleet" backends --json >backends-policies.json
node --input-type=module -e '
  import { readFileSync } from "node:fs";
  const { results } = JSON.parse(readFileSync("policy.json", "utf8"));
  const row = (b, p) => results.find((r) => r.backend === b && r.policy === p) ?? {};
  const [mtile, nmajor] = [row("mi350", "fleet-mtile"), row("mi350", "fleet-nmajor")];
  if (mtile.status !== "ok" || nmajor.status !== "ok") throw new Error(`policy: ${JSON.stringify(nmajor)}`);
  // N-major shares no weight tile in flight: a lower L2 hit rate than cooperative M-major at batch 32.
  if (!(nmajor.l2HitRate < mtile.l2HitRate)) throw new Error(`policy: n-major hit ${nmajor.l2HitRate} >= m-tile ${mtile.l2HitRate}`);
  if (row("h100", "fleet-nmajor").status !== "unsupported") throw new Error("policy: h100 fleet-nmajor should be unsupported");
  const { backends } = JSON.parse(readFileSync("backends-policies.json", "utf8"));
  if (!backends.every((b) => b.policies.some((p) => p.policy === "fleet-nmajor"))) throw new Error("backends: fleet-nmajor not listed");
  console.error(`  mi350 fleet-nmajor b32 L2 hit ${nmajor.l2HitRate} (fleet-mtile ${mtile.l2HitRate})`);
'
"$fleet" report --backends mi350 --policies fleet-mtile,fleet-nmajor --batch 32 --decode 8 --sample-layers 1 --out report >/dev/null
[[ -s report/charts/traversal-l2.svg ]] && grep -q 'chart-traversal-l2' report/index.html || fail "fleet report: the installed package's section (traversal-l2) is missing"

step "a bad flag is one line and exit code 2"
set +e
"$fleet" compare --backends nosuch >/dev/null 2>err.txt
code=$?
set -e
[[ $code -eq 2 && "$(wc -l <err.txt)" -eq 1 ]] || fail "bad input: exit $code, stderr: $(cat err.txt)"

step "exports and types resolve from the installed packages"
node --input-type=module -e '
  const core = await import("@fleet/core");
  const b200 = (await import("@fleet-examples/backend-b200")).default;
  if (core.loadBackend(b200, "pack-test").name !== "b200") throw new Error("b200 does not load");
  for (const s of ["@fleet/core/conformance", "@fleet/core/package.json", "@fleet/cli/package.json", "@fleet/ops", "@fleet/attention-study", "@fleet/numerics", "@fleet/functional", "@fleet/validation"]) import.meta.resolve(s);
'
cat >check.ts <<'EOF'
import { loadBackend, type Backend, type Topology } from '@fleet/core';
import { predictDecode } from '@fleet/ops';
import { roundBf16 } from '@fleet/numerics';
import { verifyDecode } from '@fleet/functional';
import { main } from '@fleet/cli';
import h100 from '@fleet/backend-h100';
import b200, { topology } from '@fleet-examples/backend-b200';

const t: Topology = topology;
const backends: Backend[] = [loadBackend(b200, 'check'), loadBackend(h100, 'check')];
export const used = [t, backends, predictDecode, roundBf16, verifyDecode, main];
EOF
printf '{ "compilerOptions": { "module": "nodenext", "target": "es2022", "strict": true, "noEmit": true, "skipLibCheck": true, "types": [] }, "files": ["check.ts"] }\n' >tsconfig.json
"$ROOT/node_modules/.bin/tsc" -p tsconfig.json || fail "type-checking against the installed packages"

printf '\npack test passed: %d tarballs installed and run in an empty project (%ds)\n' "${#PACKAGES[@]}" "$((SECONDS - started))" >&2
