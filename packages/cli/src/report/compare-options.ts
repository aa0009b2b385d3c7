import { Option, type Command } from 'commander';
import { layerKinds, layersToSample, parseWeightType, type PolicyOverrides } from '@fleet/ops';
import { inputError, listPresets, loadModel, parseRouting, expertPopularity, type ModelSpec } from '@fleet/core';
import { policyNames } from '@fleet/ops';
import { ATTENTION_MAPPINGS } from '@fleet/attention-study';
import { loadBackends } from '../backends.js';
import { policiesOf } from '../policies.js';
import { parseInt1, parseIntList, parseNameList, PHASES, type CompareOptions, type Phase } from '../compare.js';
import type { CompareSampling } from '../format/index.js';
import type { Io } from '../io.js';

/** The options `fleet compare` takes, for commands that run the same comparison. */
export function addCompareOptions(cmd: Command): Command {
  return cmd
    .option('--model <name|path>', `preset (${listPresets().join(', ')}), a config.json, or a directory with config.json and *.safetensors`, 'qwen3-8b')
    .option('--backends <list>', 'comma-separated backend names (default: all installed)')
    .option('--policies <list>', `comma-separated policies (default: every installed policy; Fleet's own: ${policyNames().join(', ')})`)
    .option('--batch <list>', 'comma-separated batch sizes', '1,8,32')
    .addOption(
      new Option('--phase <phase>', 'decode: TPOT after the prompt; prefill: TTFT of the prompt; mixed: one step of the decode batch with a prefill chunk')
        .choices(PHASES)
        .default('decode'),
    )
    .option('--prompt <list>', 'prompt tokens, comma-separated: in the KV cache before decoding (default 64), or the prompt to prefill (default 2048)')
    .option('--chunk <n>', 'prefill: tokens per chunk (chunked prefill; default the whole prompt in one step); mixed: the chunk in the step (default 512)')
    .option('--decode <n>', 'decode tokens; TPOT is their mean', '1024')
    .option('--positions <n>', 'decode positions (or prefill chunks) simulated, evenly spaced; the rest are interpolated', '1')
    .option(
      '--sample-layers <n>',
      "decoder layers simulated; the rest repeat the steady-state layer (exactly where results say layersExtrapolated: proven). The model's layer count asks for every layer: a few run, and all of them only when no repeat is proven",
      '3',
    )
    .option('--max-sim-steps <n>', 'refuse runs whose GEMM and attention tiles exceed this many simulated steps per decode position', '10000000')
    .option(
      '--tp <list>',
      "tensor-parallel degrees, comma-separated (devices of the backend's node; heads, FFN and vocabulary split, all-reduce after O and down, logits all-gathered)",
      '1',
    )
    .option('--ep <n>', 'expert-parallel degree for mixture-of-experts models (ep groups of tp devices)', '1')
    .option(
      '--no-custom-all-reduce',
      "tensor-parallel all-reduces through the collective library alone (NCCL/RCCL), as PyTorch's dist.all_reduce runs them, never the serving engine's custom all-reduce",
    )
    .option(
      '--weights <type>',
      'decoder-layer linear weights: bf16; W8A8 FP8 f8e4m3 (per-tensor scales), f8e4m3c (per-channel), f8e4m3ae5m2 (e5m2 activations), f8e4m3fnuz (MI300X); or a low-bit type with a group, e.g. u4g128, i6g128, f6e3m2g128',
      'bf16',
    )
    .addOption(new Option('--weight-cache <policy>', 'override how weights are loaded (isolates a mechanism)').choices(['default', 'streaming', 'nontemporal']))
    .addOption(new Option('--store-cache <policy>', 'override how activations are stored').choices(['default', 'streaming', 'nontemporal']))
    .addOption(new Option('--fuse-silu <on|off>', 'override fusing SiLU·mul into the gate+up projection').choices(['on', 'off']))
    .addOption(new Option('--traversal <order>', 'override the chiplet-task tile order').choices(['m-tile', 'm-split', 'n-major']))
    .addOption(new Option('--two-level <on|off>', 'override two-level completion counting').choices(['on', 'off']))
    .addOption(new Option('--cluster-size <n>', 'cluster policies (clusterfusion): CTAs per thread-block cluster').choices(CLUSTER_SIZES))
    .addOption(
      new Option('--dataflow <d>', 'cluster policies: split-token (CTAs split the KV positions) or split-head (the head dim)').choices([
        'split-token',
        'split-head',
      ]),
    )
    .addOption(
      new Option('--dsmem <on|off>', 'cluster policies: collectives through DSMEM (on) or through global memory (off, the ablation)').choices(['on', 'off']),
    )
    .option('--routing <spec>', 'MoE models: expert routing — uniform, zipf:<s> (popularity ∝ 1/rank^s), or a JSON file of per-expert token counts', 'uniform')
    .addOption(
      new Option(
        '--expert-placement <p>',
        'override which chiplet runs an expert (chiplet-task policies): owner (expert e on XCD e mod P) or spread (every expert over all XCDs)',
      ).choices(['owner', 'spread']),
    )
    .addOption(
      new Option(
        '--attention-mapping <m>',
        "prefill attention: map the FlashAttention grid's workgroups to chiplets as the NUMA attention study does (launch-order kernels, e.g. CDNA's)",
      ).choices([...ATTENTION_MAPPINGS]),
    );
}

/** Thread-block cluster sizes a cluster policy may take (Hopper: up to 16 CTAs, powers of two). */
export const CLUSTER_SIZES = ['1', '2', '4', '8', '16'];

/** `--tp 8,4,2`: distinct powers of two in 1..64 (a tensor-parallel group of a node). */
export function parseTpList(value: string): number[] {
  const tps = parseIntList('--tp', value, 1, 64);
  for (const t of tps) if ((t & (t - 1)) !== 0) throw inputError(`--tp: '${t}' is not a power of two (allowed: 1, 2, 4, 8, 16, 32, 64)`);
  const dup = tps.find((t, i) => tps.indexOf(t) !== i);
  if (dup !== undefined) throw inputError(`--tp: '${dup}' is listed twice`);
  return tps;
}

/** The schedule overrides given on the command line, or undefined. */
export function overridesOf(o: Record<string, string | undefined>): PolicyOverrides | undefined {
  const out: PolicyOverrides = {};
  if (o.weightCache) out.weightPolicy = o.weightCache as PolicyOverrides['weightPolicy'];
  if (o.storeCache) out.storePolicy = o.storeCache as PolicyOverrides['storePolicy'];
  if (o.fuseSilu) out.fuseActivation = o.fuseSilu === 'on';
  if (o.traversal) out.traversal = o.traversal as PolicyOverrides['traversal'];
  if (o.twoLevel) out.twoLevelCounting = o.twoLevel === 'on';
  if (o.expertPlacement) out.expertPlacement = o.expertPlacement as PolicyOverrides['expertPlacement'];
  if (o.attentionMapping) out.attentionMapping = o.attentionMapping as PolicyOverrides['attentionMapping'];
  if (o.clusterSize) out.clusterSize = Number(o.clusterSize);
  if (o.dataflow) out.clusterDataflow = o.dataflow as PolicyOverrides['clusterDataflow'];
  if (o.dsmem) out.dsmem = o.dsmem === 'on';
  return Object.keys(out).length > 0 ? out : undefined;
}

export interface ResolvedCompare {
  model: ModelSpec;
  opts: CompareOptions;
  sampling: CompareSampling;
  overrides?: PolicyOverrides;
}

/** Parse and check the comparison options (same rules and messages as `fleet compare`). */
export async function resolveCompareOptions(o: Record<string, string | undefined>, io: Io): Promise<ResolvedCompare> {
  const model = loadModel(o.model!);
  const registry = await loadBackends(io.cwd);
  const backends = o.backends !== undefined ? parseNameList('--backends', o.backends).map((n) => registry.get(n)) : registry.all();
  const installed = policiesOf(registry);
  const policies = o.policies !== undefined ? parseNameList('--policies', o.policies) : null;
  for (const p of policies ?? []) if (!installed.get(p)) throw inputError(`--policies: unknown policy '${p}' (known: ${installed.names().join(', ')})`);
  const phase = (o.phase ?? 'decode') as Phase;
  const prompts = parseIntList('--prompt', o.prompt ?? (phase === 'prefill' ? '2048' : '64'), phase === 'prefill' ? 1 : 0, 1_000_000);
  if (o.chunk !== undefined && phase === 'decode') throw inputError(`--chunk applies to --phase prefill or mixed (got --phase decode)`);
  const opts: CompareOptions = {
    backends,
    policies,
    installed,
    batches: parseIntList('--batch', o.batch!),
    phase,
    prompt: prompts[0]!,
    prompts,
    ...(o.chunk !== undefined ? { chunk: parseInt1('--chunk', o.chunk, 1, 1_000_000) } : {}),
    decode: parseInt1('--decode', o.decode!, 1, 1_000_000),
    positions: parseInt1('--positions', o.positions!, 1, 64),
    layers: parseInt1('--sample-layers', o.sampleLayers!, 1, 1000),
    overrides: overridesOf(o),
    weights: parseWeightType(o.weights ?? 'bf16'),
    maxSimSteps: parseInt1('--max-sim-steps', o.maxSimSteps ?? '10000000', 1, 1e12),
    routing: parseRouting(o.routing ?? 'uniform'),
    tps: parseTpList(o.tp ?? '1'),
    ep: parseInt1('--ep', o.ep ?? '1', 1, 64),
    ...((o.customAllReduce as unknown) === false ? { customAllReduce: false } : {}),
  };
  // A mixed step is simulated on one device: refuse parallelism rather than ignore it.
  if (phase === 'mixed' && (opts.tps!.some((t) => t > 1) || opts.ep! > 1))
    throw inputError(`--phase mixed simulates one device: --tp and --ep must be 1 (got --tp ${o.tp ?? '1'}, --ep ${o.ep ?? '1'})`);
  // A histogram must have one count per expert of this model: refuse it before any simulation.
  if (model.moe) expertPopularity(opts.routing!, model.moe.numExperts, 0);
  // Every kind of layer is sampled (MoE past dense first layers, global past windowed ones):
  // as many as the longest context asks for.
  const longest = Math.max(...prompts) + (phase === 'decode' ? opts.decode : phase === 'mixed' ? (opts.chunk ?? 512) : 0);
  const simulated = layersToSample(layerKinds(model, longest), Math.min(opts.layers, model.numLayers));
  const layersNote =
    simulated < model.numLayers
      ? `${simulated} of ${model.numLayers} layers simulated, the rest repeat the steady-state layer (exactly where layersExtrapolated is 'proven': the layer started and ended in the same machine state)`
      : `all ${model.numLayers} layers (kernel-per-op runs stop once a layer provably repeats)`;
  const sampling: CompareSampling = {
    decodePositions: opts.positions,
    layersSimulated: simulated,
    layersTotal: model.numLayers,
    note:
      phase === 'mixed'
        ? `one serving step: the batch's decode requests (each at the prompt's length) and one ${opts.chunk ?? 512}-token prefill chunk; ${layersNote}`
        : phase === 'prefill'
          ? `TTFT covers the whole prompt${opts.chunk ? ` in chunks of ${opts.chunk} tokens, ${Math.max(2, opts.positions)} chunks simulated (first and last included, and those either side of where a sliding window fills) and the rest interpolated` : ' in one step'}; ${layersNote}`
          : `TPOT is the mean over ${opts.decode} decode positions, estimated from ${Math.min(opts.positions, opts.decode)} simulated position(s); ${layersNote}`,
  };
  return { model, opts, sampling, overrides: opts.overrides };
}
