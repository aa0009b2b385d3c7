import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { checkpointTensors, crossCheckTensors } from './cross-check.js';
import { readHfConfig } from './hf-config.js';
import { lineError, oneLine } from './messages.js';
import type { ModelSpec } from './model-spec.js';
import { activeParameterCount, parameterCount } from './parameters.js';
import { listPresets, MODEL_PRESETS } from './presets.js';
import { readSafetensorsHeader } from './safetensors.js';

/**
 * The one entry point for "which model": the CLI accepts a preset name, a `config.json`, or
 * a checkpoint directory, and every consumer gets the same validated `ModelSpec`.
 */

export { parameterCount } from './parameters.js';

function noSuchModel(ref: string, why: string): never {
  throw lineError(`model '${ref}': ${why} (presets: ${listPresets().join(', ')})`);
}

/** A directory: its `config.json`, checked against the headers of its `*.safetensors` files. */
function loadDirectory(dir: string): ModelSpec {
  const configPath = nodePath.join(dir, 'config.json');
  if (!fs.existsSync(configPath)) throw lineError(`${dir}: directory holds no config.json`);
  const spec = { ...readHfConfig(configPath), name: dir };
  let entries: string[];
  try {
    entries = fs.readdirSync(dir);
  } catch (e) {
    throw lineError(`${dir}: cannot list directory: ${oneLine(e)}`);
  }
  const files = entries.filter((f) => f.endsWith('.safetensors')).sort();
  if (files.length > 0) {
    const headers = files.map((f) => readSafetensorsHeader(nodePath.join(dir, f)));
    crossCheckTensors(spec, checkpointTensors(headers), dir);
  }
  return spec;
}

/**
 * Resolve `ref`: a preset name (case-insensitive), a path to a `config.json`, or a directory
 * holding `config.json` and optionally `*.safetensors` shards (headers only are read).
 */
export function loadModel(ref: string): ModelSpec {
  if (typeof ref !== 'string' || ref.trim() === '') noSuchModel(String(ref), 'empty model name');
  const key = ref.trim().toLowerCase();
  if (Object.hasOwn(MODEL_PRESETS, key)) return structuredClone(MODEL_PRESETS[key]) as ModelSpec;
  let stat: fs.Stats | undefined;
  try {
    stat = fs.statSync(ref, { throwIfNoEntry: false });
  } catch (e) {
    throw lineError(`${ref}: cannot access: ${oneLine(e)}`);
  }
  if (!stat) noSuchModel(ref, 'not a preset and no such file or directory');
  if (stat.isDirectory()) return loadDirectory(ref);
  return { ...readHfConfig(ref), name: ref };
}

/** Billions with two decimals, as model sizes are usually quoted. */
function billions(n: number): string {
  return `${(n / 1e9).toFixed(2)}B`;
}

/** A one-line summary of a model, for logs and `fleet models`. */
export function describeModel(spec: ModelSpec): string {
  const extras = [
    spec.qkNorm ? 'qk-norm' : '',
    spec.qkvBias ? 'qkv-bias' : '',
    spec.tieWordEmbeddings ? 'tied embeddings' : '',
    spec.normsPerLayer === 4 ? 'pre+post norms' : '',
    spec.slidingWindow
      ? `${spec.slidingWindow.tokens}-token window on ${spec.slidingWindow.layers.length === spec.numLayers ? 'every layer' : `${spec.slidingWindow.layers.length} of ${spec.numLayers} layers`}`
      : '',
    spec.mla ? `MLA (kv_lora ${spec.mla.kvLoraRank} + rope ${spec.mla.ropeDim}${spec.mla.qLoraRank !== null ? `, q_lora ${spec.mla.qLoraRank}` : ''})` : '',
    spec.moe
      ? `MoE ${spec.moe.numExperts} experts top-${spec.moe.expertsPerToken} × FFN ${spec.moe.expertIntermediateSize}` +
        (spec.moe.sharedIntermediateSize > 0 ? ` + shared ${spec.moe.sharedIntermediateSize}` : '') +
        (spec.moe.denseLayers.length > 0 ? `, ${spec.moe.denseLayers.length} dense layer${spec.moe.denseLayers.length > 1 ? 's' : ''}` : '') +
        `, ${billions(activeParameterCount(spec))} active`
      : '',
  ].filter((s) => s !== '');
  return (
    `${spec.name}: ${billions(parameterCount(spec))} params, ${spec.numLayers} layers, hidden ${spec.hiddenSize}, ` +
    `${spec.numHeads} heads / ${spec.numKvHeads} KV heads × ${spec.headDim}, FFN ${spec.intermediateSize} (${spec.activation}), ` +
    `vocab ${spec.vocabSize}, ${spec.dtype}${extras.length > 0 ? `, ${extras.join(', ')}` : ''}`
  );
}
