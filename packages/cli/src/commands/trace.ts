import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { Option, type Command } from 'commander';
import {
  buildDecodeGraph,
  buildMixedGraph,
  buildPrefillGraph,
  inputError,
  listPresets,
  loadModel,
  multiDeviceTrace,
  OpSpans,
  serializeTrace,
  simulateGraph,
  TraceRecorder,
  type SimEvent,
} from '@fleet/core';
import { backendCompileOptions, collectivesFor, parallelismProblem, policyNames } from '@fleet/ops';
import { loadBackends } from '../backends.js';
import { policiesOf, requirePolicy } from '../policies.js';
import { parseInt1, PHASES, type Phase } from '../compare.js';
import type { Io } from '../io.js';
import { progress } from '../progress.js';

/** Plain JSON above this many MiB is written gzipped instead (as `<file>.gz`): Perfetto opens both. */
export const AUTO_GZIP_MIB = 32;

/** `--layers 2` or `--layers 0-3` → the decoder layers to simulate, checked against the model. */
export function parseLayerRange(value: string, numLayers: number): number[] {
  const m = /^\s*(\d+)\s*(?:-\s*(\d+)\s*)?$/.exec(value);
  const max = numLayers - 1;
  if (!m) throw inputError(`--layers: '${value}' is not a layer or a range a-b (layers 0..${max})`);
  const a = Number(m[1]);
  const b = m[2] === undefined ? a : Number(m[2]);
  if (a > b || b > max) throw inputError(`--layers: '${value}' is not a range within 0..${max}`);
  return Array.from({ length: b - a + 1 }, (_, i) => a + i);
}

/** `fleet trace`: one simulated decode step as a Chrome Trace / Perfetto timeline. */
export function registerTrace(program: Command, io: Io): void {
  program
    .command('trace')
    .description('write one simulated step (decode, prefill or mixed) as a Perfetto / Chrome trace (open it in ui.perfetto.dev)')
    .option('--model <name|path>', `preset (${listPresets().join(', ')}), a config.json, or a directory with config.json and *.safetensors`, 'qwen3-8b')
    .requiredOption('--backend <name>', 'backend to simulate')
    .requiredOption('--policy <name>', `scheduling policy (known: ${[...new Set(policyNames())].join(', ')})`)
    .option('--batch <n>', 'batch size', '1')
    .addOption(
      new Option('--phase <phase>', 'decode: one token per request; prefill: a prompt; mixed: the decode batch with a prefill chunk')
        .choices(PHASES)
        .default('decode'),
    )
    .option('--context <n>', 'tokens already in the KV cache (decode and mixed: each decode request, default 64; prefill: earlier chunks, default 0)')
    .option('--prompt <n>', 'prefill: prompt tokens this step runs per request', '512')
    .option('--chunk <n>', 'mixed: prefill tokens riding along with the decode batch', '512')
    .option('--layers <a-b>', 'decoder layers to simulate (embedding and head always run)', '0-2')
    .requiredOption('-o, --out <file>', 'output file: .json, or .json.gz for gzip')
    .option('--gzip-above <MiB>', 'write <file>.gz instead when the JSON is larger than this', String(AUTO_GZIP_MIB))
    .option('--tp <n>', "tensor parallelism: the step on n GPUs of the backend's node, each GPU its own process, flows for the data they exchange", '1')
    .option('--json', "print a machine-readable summary, with each op's span and busy time (where the step's time goes)")
    .action(async (o) => {
      const model = loadModel(o.model);
      const registry = await loadBackends(io.cwd);
      const backend = registry.get(String(o.backend).trim());
      const policy = String(o.policy).trim();
      const resolved = requirePolicy(backend, policy, policiesOf(registry));
      const def = resolved.policy;
      const batch = parseInt1('--batch', o.batch, 1, 4096);
      const phase = o.phase as Phase;
      const context = parseInt1('--context', o.context ?? (phase === 'prefill' ? '0' : '64'), 0, 1_000_000);
      const prompt = parseInt1('--prompt', o.prompt, 1, 1_000_000);
      const chunk = parseInt1('--chunk', o.chunk, 1, 1_000_000);
      const noPrefill = phase !== 'decode' ? def.prefill : null;
      if (noPrefill) throw inputError(`--phase ${phase}: ${policy} has no prefill schedule (${noPrefill})`);
      const layers = parseLayerRange(o.layers, model.numLayers);
      let file = resolve(io.cwd ?? process.cwd(), o.out);
      const gzipAbove = String(o.gzipAbove).trim() === '' ? NaN : Number(o.gzipAbove);
      if (!(gzipAbove >= 0)) throw inputError(`--gzip-above: '${o.gzipAbove}' is not a size in MiB (a number ≥ 0)`);

      const tp = parseInt1('--tp', String(o.tp), 1, 64);
      const why = tp > 1 ? parallelismProblem(backend, model, { tp, ep: 1, devices: tp }) : null;
      if (why) throw inputError(`--tp: ${why}`);
      if (tp > 1 && def.tensorParallel) throw inputError(`--tp: ${policy} has no tensor-parallel schedule (${def.tensorParallel})`);
      if (tp > 1 && phase === 'mixed') throw inputError('--tp: mixed steps are simulated on one device');
      const par = tp > 1 ? { tp } : {};
      const opGraph =
        phase === 'prefill'
          ? buildPrefillGraph(model, { batch, promptLen: prompt, contextLen: context, ...par })
          : phase === 'mixed'
            ? buildMixedGraph(model, { batch, contextLen: context, chunk })
            : buildDecodeGraph(model, { batch, contextLen: context, ...par });
      const multi = collectivesFor(backend, opGraph);
      const graph = def.compile(opGraph, backend, resolved.schedule, {
        ...backendCompileOptions(backend),
        layers,
        ...(multi ? { collective: multi.collective } : {}),
      });
      const runtime = def.runtime(backend, resolved.schedule);
      const persistent = runtime.persistent;
      // What step the trace shows: in its metadata and in the summary.
      const stepFields = {
        model: model.name,
        phase,
        batch,
        context,
        ...(phase === 'prefill' ? { prompt } : phase === 'mixed' ? { chunk } : {}),
        layers: `${layers[0]}-${layers[layers.length - 1]}`,
      };
      const recorder = new TraceRecorder({
        graph,
        backend,
        metadata: stepFields,
      });
      // Progress: task slices started, out of those the step will run.
      const expected = graph.tasks.reduce((n, t) => n + (t.partition !== null && persistent ? persistent.workersPerPartition : 1), 0);
      const bar = progress(io, expected);
      const ticker = (events: readonly SimEvent[]) => {
        for (const e of events) if (e.type === 'task-start') bar.tick(`${backend.name} ${policy} b${batch}`);
      };
      const spans = new OpSpans();
      const step = simulateGraph(backend, graph, {
        ...runtime,
        sampleIntervalNs: 1000,
        observers: [recorder.observer, ticker, spans.observer],
        ...(multi ? { linkBytesPerNs: multi.linkBytesPerNs } : {}),
      });
      bar.stop();

      const trace = tp > 1 ? multiDeviceTrace(recorder.finish(), tp, backend.node!.topology.name) : recorder.finish();
      const json = serializeTrace(trace);
      let bytes: Buffer = Buffer.from(json);
      const jsonBytes = bytes.length;
      let gzipped = false;
      let note = '';
      if (file.endsWith('.gz')) {
        bytes = gzipSync(bytes);
        gzipped = true;
      } else if (bytes.length > gzipAbove * 2 ** 20) {
        bytes = gzipSync(bytes);
        gzipped = true;
        note = ` (gzipped: the JSON is ${mb(jsonBytes)} MB, over ${gzipAbove} MiB)`;
        file = `${file}.gz`;
      }
      writeFileSync(file, bytes);
      const count = (ph: string) => trace.traceEvents.filter((e) => e.ph === ph).length;
      const summary = {
        schemaVersion: 1,
        file,
        bytes: bytes.length,
        jsonBytes,
        gzipped,
        backend: backend.name,
        policy,
        ...stepFields,
        tp,
        stepNs: Math.round(step.timeNs),
        events: trace.traceEvents.length,
        slices: count('X'),
        flows: count('s'),
        instants: count('i'),
        counters: count('C'),
        // Where the step's time goes, op by op: the span from its first task's start to its last
        // task's end, and the worker time its tasks took (ns).
        ops: spans.spans(graph).map((s) => ({ ...s, startNs: round3(s.startNs), endNs: round3(s.endNs), busyNs: round3(s.busyNs) })),
      };
      if (o.json) io.out(`${JSON.stringify(summary, null, 2)}\n`);
      else {
        io.out(
          `wrote ${file}${note}: ${mb(bytes.length)} MB, ${summary.slices} slices, ${summary.flows} flows, ${summary.instants} instants, ${summary.counters} counter samples; ` +
            `simulated step ${(step.timeNs / 1e3).toFixed(1)} µs (layers ${layers[0]}-${layers[layers.length - 1]} of ${model.numLayers}, plus embedding and head).\n` +
            `Open it at https://ui.perfetto.dev (Open trace file), or chrome://tracing.\n`,
        );
      }
    });
}

function round3(ns: number): number {
  return Math.round(ns * 1000) / 1000;
}

function mb(bytes: number): string {
  return (bytes / 1e6).toFixed(1);
}
