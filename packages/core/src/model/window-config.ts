import { int, present, type Cfg } from './config-fields.js';
import { lineError, showValue } from './messages.js';
import type { SlidingWindow } from './model-spec.js';

/**
 * Which layers of a Hugging Face `config.json` attend within a sliding window, as the
 * transformers configuration classes decide it: an explicit `layer_types` list first
 * (transformers ≥ 4.53 writes one), else each architecture's rule and defaults.
 */

const LAYER_TYPES = ['full_attention', 'sliding_attention'] as const;

/** `sliding_window` tokens: absent, the architecture's default `dflt`; null, no window. */
function windowTokens(cfg: Cfg, origin: string, dflt: number | null): number | null {
  if (cfg.sliding_window === undefined) return dflt;
  if (cfg.sliding_window === null) return null;
  return int(cfg, 'sliding_window', origin, 1, 1 << 30);
}

/** The config's sliding window, or undefined where every layer attends to the whole context. */
export function parseSlidingWindow(cfg: Cfg, modelType: string, origin: string, layers: number): SlidingWindow | undefined {
  const range = Array.from({ length: layers }, (_, l) => l);
  const make = (tokens: number | null, windowed: number[]): SlidingWindow | undefined =>
    tokens === null || windowed.length === 0 ? undefined : { tokens, layers: windowed };
  if (present(cfg, 'layer_types')) {
    const types = cfg.layer_types;
    if (!Array.isArray(types) || types.length !== layers) {
      throw lineError(`${origin}: field 'layer_types' (${showValue(types)}) must list one attention type per layer (${layers})`);
    }
    const bad = types.find((t) => !(LAYER_TYPES as readonly unknown[]).includes(t));
    if (bad !== undefined) throw lineError(`${origin}: field 'layer_types' holds ${showValue(bad)} (allowed: ${LAYER_TYPES.join(', ')})`);
    const windowed = range.filter((l) => types[l] === 'sliding_attention');
    if (windowed.length === 0) return undefined;
    if (!present(cfg, 'sliding_window'))
      throw lineError(`${origin}: field 'layer_types' names sliding-attention layers but 'sliding_window' is unset (a positive integer)`);
    return make(windowTokens(cfg, origin, null), windowed);
  }
  switch (modelType) {
    case 'mistral':
      // MistralConfig's default window is 4096; later checkpoints write null (full attention).
      return make(windowTokens(cfg, origin, 4096), range);
    case 'mixtral':
    case 'phi3':
      // Phi-3-mini-4k writes a 2047-token window; Phi-3.5 and Phi-4 write null.
      return make(windowTokens(cfg, origin, null), range);
    case 'qwen2':
    case 'qwen2_moe':
    case 'qwen3':
    case 'qwen3_moe': {
      // The window applies only with `use_sliding_window`, from layer `max_window_layers` on.
      if (cfg.use_sliding_window !== true) return undefined;
      const from = int(cfg, 'max_window_layers', origin, 0, layers, 28);
      return make(
        windowTokens(cfg, origin, 4096),
        range.filter((l) => l >= from),
      );
    }
    case 'gemma2':
      // Local and global layers alternate, the first local.
      return make(
        windowTokens(cfg, origin, 4096),
        range.filter((l) => l % 2 === 0),
      );
    case 'gemma3_text': {
      // Five local layers to one global: layer l is global where (l + 1) is a multiple of the pattern.
      const pattern = int(cfg, 'sliding_window_pattern', origin, 1, layers + 1, 6);
      return make(
        windowTokens(cfg, origin, 4096),
        range.filter((l) => (l + 1) % pattern !== 0),
      );
    }
    default:
      return undefined;
  }
}
