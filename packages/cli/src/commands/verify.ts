import { Option, type Command } from 'commander';
import { describeModel, FleetError, inputError, listPresets, type TaskGraph } from '@fleet/core';
import {
  defaultTolerance,
  dropDependency,
  loadFunctionalModel,
  modelFloatDType,
  randomWeights,
  verifyDecode,
  verifyTensorParallel,
  type VerifyResult,
} from '@fleet/functional';
import { parseWeightType, policyNames } from '@fleet/ops';
import { loadBackends } from '../backends.js';
import { policiesOf } from '../policies.js';
import { parseInt1 } from '../compare.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';

/** Exit code of a verification that ran and found wrong numbers (bad input stays 2, deadlocks 3). */
export const VERIFY_FAILED_EXIT = 1;

/** A check that ran and failed: one line on stderr, exit code 1. */
class VerificationFailed extends FleetError {
  constructor(message: string) {
    super(message, VERIFY_FAILED_EXIT);
    this.name = 'VerificationFailed';
  }
}

function parseTolerance(v: string): number {
  const x = Number(v);
  if (v.trim() === '' || !Number.isFinite(x) || x < 0) throw inputError(`--tolerance: '${v}' is not a non-negative number`);
  return x;
}

function fmtErr(x: number): string {
  if (Number.isNaN(x)) return '-';
  if (!Number.isFinite(x)) return 'inf';
  return x === 0 ? '0' : x.toExponential(2);
}

function table(rows: readonly VerifyResult[]): string {
  const head = ['backend', 'policy', 'status', 'max rel err', 'tasks/step', 'note'];
  const body = rows.map((r) => [
    r.backend,
    r.policy,
    r.status,
    fmtErr(r.maxRelError),
    r.steps.length > 0 ? String(r.steps[0]!.tasks) : '-',
    r.status === 'pass' ? '' : (r.reason ?? ''),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 3 || i === 4 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}

/** JSON numbers cannot be NaN or ∞: those become null. */
const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** `fleet verify`: functional execution of compiled task graphs against the straight-line reference. */
export function registerVerify(program: Command, io: Io): void {
  program
    .command('verify')
    .description(
      "run decode steps of a small model through each policy's task graph with real numbers and compare the logits with a straight-line reference (exit 1 on a mismatch)",
    )
    .option(
      '--model <name|path>',
      `'tiny', 'tiny-moe' or 'tiny-mla' (built in, random weights; with a Mixture-of-Experts layer, and latent attention), a config.json, or a directory with config.json and optionally *.safetensors weights (presets: ${listPresets().join(', ')} are too large)`,
      'tiny',
    )
    .option('--backend <list>', 'comma-separated backend names (default: all installed)')
    .option('--policy <list>', `comma-separated policies (default: every installed policy; Fleet's own: ${policyNames().join(', ')})`)
    .option('--batch <n>', 'requests decoded together', '2')
    .option('--context <n>', 'tokens in the KV cache before the first step', '300')
    .option('--steps <n>', 'decode steps', '2')
    .option('--seed <n>', 'seed of the random weights, KV cache and tokens', '1')
    .option(
      '--weights <type>',
      'decoder-layer linear weights: bf16, or W8A8 FP8 (f8e4m3, f8e4m3c, f8e4m3ae5m2, f8e4m3fnuz) run as FP8 codes and scales in both runs',
      'bf16',
    )
    .option('--tolerance <x>', 'largest accepted max |logit − reference| / max |reference| (default 2e-2 for bf16/fp16 models, 1e-4 for fp32)')
    .option(
      '--drop-dependency <op-id>',
      'fault injection: the stage or kernel starting at this op (e.g. lm_head, L1.o_proj, L1.qkv_proj) no longer waits for the one before it; verification should then fail',
    )
    .option(
      '--tp <n>',
      'tensor parallelism: run the model on n ranks (sharded weights and KV cache, all-reduces, logits all-gather) and compare its logits with the single-device reference',
      '1',
    )
    .addOption(new Option('--format <fmt>', 'output format').choices(['table', 'json']).default('table'))
    .option('--json', 'same as --format json')
    .action(async (o) => {
      const model = loadFunctionalModel(String(o.model));
      const registry = await loadBackends(io.cwd);
      const backends = o.backend
        ? String(o.backend)
            .split(',')
            .map((n) => registry.get(n.trim()))
        : registry.all();
      const installed = policiesOf(registry);
      const policies = o.policy
        ? String(o.policy)
            .split(',')
            .map((p) => p.trim())
        : null;
      for (const p of policies ?? []) if (!installed.get(p)) throw inputError(`--policy: unknown policy '${p}' (known: ${installed.names().join(', ')})`);
      const batch = parseInt1('--batch', o.batch, 1, 256);
      const contextLen = parseInt1('--context', o.context, 0, 100_000);
      const steps = parseInt1('--steps', o.steps, 1, 64);
      const seed = parseInt1('--seed', o.seed, 0, 2 ** 31 - 1);
      const tolerance = o.tolerance === undefined ? defaultTolerance(modelFloatDType(model.spec)) : parseTolerance(String(o.tolerance));
      const weightType = parseWeightType(String(o.weights));
      if (weightType.kind === 'dense' && weightType.bits !== 16)
        throw inputError(`--weights: '${String(o.weights)}': fleet verify runs bf16 or W8A8 FP8 weights`);
      const drop = o.dropDependency === undefined ? undefined : String(o.dropDependency);
      const transform = drop === undefined ? undefined : (tg: TaskGraph) => dropDependency(tg, drop);

      // Random weights are drawn once for every run (the same ones `verifyDecode` would draw).
      const weights = model.weights ?? randomWeights(model.spec, seed);
      const tp = parseInt1('--tp', String(o.tp), 1, 64);
      if (tp > 1 && weightType.kind !== 'dense') throw inputError("--weights applies to the policies' task graphs, not to --tp");
      if (tp > 1 && drop !== undefined) throw inputError("--drop-dependency applies to the policies' task graphs, not to --tp");
      // --tp N checks the tensor-parallel split itself against the single device, on no backend.
      const jobs = tp > 1 ? [] : backends.flatMap((backend) => (policies ?? installed.names()).map((policy) => ({ backend, policy })));
      const bar = progress(io, Math.max(1, jobs.length), 'verifying');
      const results: VerifyResult[] = [];
      if (tp > 1) {
        bar.tick(`tp ${tp}`);
        results.push(verifyTensorParallel(model.spec, { tp, batch, contextLen, steps, seed, weights, semantics: model.semantics, tolerance }));
      }
      for (const { backend, policy } of jobs) {
        bar.tick(`${backend.name} ${policy}`);
        results.push(
          verifyDecode(backend, model.spec, {
            policy,
            policies: installed,
            batch,
            contextLen,
            steps,
            seed,
            weights,
            semantics: model.semantics,
            tolerance,
            transform,
            ...(weightType.kind === 'dense' ? {} : { weightType }),
          }),
        );
      }
      bar.stop();
      const failed = results.filter((r) => r.status === 'fail');
      const passed = results.filter((r) => r.status === 'pass').length;

      if (o.json || o.format === 'json') {
        const out = {
          schemaVersion: 1,
          model: model.spec.name,
          weights: model.weightsFrom,
          weightType: weightType.name,
          batch,
          contextLen,
          steps,
          seed,
          tolerance,
          tp,
          metric: 'max |logit - reference| / max |reference|, worst decode step',
          results: results.map((r) => ({
            backend: r.backend,
            policy: r.policy,
            status: r.status,
            ...(r.reason ? { reason: r.reason } : {}),
            maxRelError: finite(r.maxRelError),
            steps: r.steps.map((s) => ({
              ...s,
              maxRelError: finite(s.maxRelError),
              maxAbsError: finite(s.maxAbsError),
              cacheRelError: finite(s.cacheRelError),
            })),
          })),
        };
        io.out(`${JSON.stringify(out, null, 2)}\n`);
      } else {
        io.out(
          `${describeModel(model.spec)} (${model.weightsFrom} weights)\n` +
            `batch ${batch}, ${contextLen} cached tokens, ${steps} decode step(s), seed ${seed}; tolerance ${tolerance.toExponential(1)} on max |logit − reference| / max |reference|\n\n` +
            `${table(results)}\n\n${passed} passed, ${failed.length} failed, ${results.length - passed - failed.length} unsupported\n`,
        );
      }
      if (failed.length > 0) {
        const f = failed[0]!;
        throw new VerificationFailed(`verification failed for ${failed.length} of ${results.length} runs (first: ${f.backend} ${f.policy}: ${f.reason})`);
      }
    });
}
