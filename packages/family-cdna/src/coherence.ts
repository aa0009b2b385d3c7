/**
 * CDNA coherence scopes (gfx942, and gfx950 which shares the `gfx9-4-generic` memory model).
 *
 * What each scope costs follows the GFX942 code sequences in LLVM's AMDGPUUsage (S14) and
 * the MI300X cache behaviour measured by MrRoy09 (S6); no public timing of a fence or an
 * atomic exists (hardware.md §7.1), so every fixed cost below is an assumption built from
 * the measured load latencies, and its provenance string says which.
 */
import type { CoherenceScope } from '@fleet/core';
import { cyclesToNs, type CdnaLatencyCycles } from './latency.js';

export interface CdnaCoherenceParams {
  clockGHz: number;
  latencyCycles: CdnaLatencyCycles;
  /**
   * Where the cycle counts come from, prefixed by its tag, e.g.
   * `'MEAS MI300X cycles (S7/S6) at 2.1 GHz'`; appended to every provenance string.
   */
  latencyOrigin: string;
  /** A measured chiplet-scope (XCD-local) atomic latency that replaces the L2-latency estimate. */
  chipletAtomic?: { ns: number; source: string };
}

interface ScopeSpec {
  scope: CoherenceScope;
  sources: { atomicLatencyNs: string; releaseFixedNs: string; acquireFixedNs: string };
}

/**
 * Cycles a cache-wide write-back (`buffer_wbl2`) takes to walk the XCD's L2 looking for
 * dirty lines: 4 MiB / 128 B = 32,768 lines over 16 channels, one line per channel per
 * clock = 2,048 cycles [UNC DER: S4 channel count and line size; the walk rate is assumed].
 */
export const L2_WALK_CYCLES = (4 * 2 ** 20) / 128 / 16;

function scopeSpecs(p: CdnaCoherenceParams): ScopeSpec[] {
  const c = p.latencyCycles;
  const ns = (cycles: number) => cyclesToNs(cycles, p.clockGHz);
  const at = `; ${p.latencyOrigin}`;
  const chipletAtomicNs = p.chipletAtomic?.ns ?? ns(c.l2);
  // Wave and workgroup scopes stay inside one CU: atomics resolve in its vL1D, release and
  // acquire cost nothing.
  const cuScope = (scope: 'wave' | 'group', releaseFixedNs: string, acquireFixedNs: string): ScopeSpec => ({
    scope: {
      scope,
      atomicResolvesAt: 'l1',
      atomicLatencyNs: ns(c.l1),
      release: { fixedNs: 0, writeBackDirty: false },
      acquire: { fixedNs: 0, invalidates: false },
    },
    sources: {
      atomicLatencyNs: `UNC one vL1D hit (${c.l1} cycles)${at}; no atomic timing exists (hardware.md §7.1)`,
      releaseFixedNs,
      acquireFixedNs,
    },
  });
  return [
    cuScope('wave', 'DS S14 AMDGPUUsage GFX942: wavefront-scope release emits no code', 'DS S14 AMDGPUUsage GFX942: wavefront-scope acquire emits no code'),
    cuScope(
      'group',
      'UNC S14: a workgroup (one CU, not tgsplit) release is only s_waitcnt; its wait overlaps other work, counted as 0',
      'UNC S14: a workgroup acquire on one CU needs no invalidate (not tgsplit), counted as 0',
    ),
    {
      // chiplet = one XCD ("agent" in CPX mode): every CU of it shares the XCD's L2.
      scope: {
        scope: 'chiplet',
        atomicResolvesAt: 'l2',
        atomicLatencyNs: chipletAtomicNs,
        release: { fixedNs: ns(c.l2), writeBackDirty: false },
        acquire: { fixedNs: ns(c.l1), invalidates: true },
      },
      sources: {
        atomicLatencyNs: p.chipletAtomic
          ? p.chipletAtomic.source
          : `UNC one local-L2 hit (${c.l2} cycles)${at}; FLEET (seeds §1) resolves XCD-local counters in the L2; S4 says MI300 routes all atomics to the MALL — we follow FLEET's design`,
        releaseFixedNs: `UNC s_waitcnt vmcnt(0) until the stores are acked by the shared XCD L2: one L2 round trip (${c.l2} cycles)${at}; no write-back, the XCD's L2 is coherent for its own CUs (S6)`,
        acquireFixedNs: `UNC buffer_inv sc0 (L1 invalidate, S14), assumed one vL1D round trip (${c.l1} cycles)${at}`,
      },
    },
    {
      scope: {
        scope: 'device',
        atomicResolvesAt: 'llc',
        atomicLatencyNs: ns(c.mall),
        release: { fixedNs: ns(L2_WALK_CYCLES), writeBackDirty: true },
        acquire: { fixedNs: ns(c.l2), invalidates: true },
      },
      sources: {
        atomicLatencyNs: `UNC lower bound: one MALL round trip (${c.mall} cycles)${at}; S4: atomics bypass L2 and execute at the MALL, no timing published`,
        releaseFixedNs: `UNC DER buffer_wbl2 sc1 + s_waitcnt vmcnt(0) (S14): the L2 walks all 32,768 lines over its 16 channels (S4) to find dirty ones, ${L2_WALK_CYCLES} cycles at one line per channel per clock (assumed); dirty bytes are charged on top (writeBackDirty), and concurrent write-backs of one L2 queue. RCCL calls the fence expensive (S15); no timing is published`,
        acquireFixedNs: `UNC buffer_inv sc1 (invalidates L1 and non-local L2 lines, S14): assumed one L2 round trip (${c.l2} cycles)${at}`,
      },
    },
    {
      scope: {
        scope: 'system',
        atomicResolvesAt: 'llc',
        atomicLatencyNs: ns(c.mall),
        release: { fixedNs: ns(L2_WALK_CYCLES + c.hbm), writeBackDirty: true },
        acquire: { fixedNs: ns(2 * c.l2), invalidates: true },
      },
      sources: {
        atomicLatencyNs: `UNC as device scope: one MALL round trip (${c.mall} cycles)${at}; S4 (all atomics at the MALL)`,
        releaseFixedNs: `UNC buffer_wbl2 sc0 sc1 (S14): the device-scope walk (${L2_WALK_CYCLES} cycles) plus one HBM round trip (${c.hbm} cycles) for the system-level ack${at}`,
        acquireFixedNs: `UNC buffer_inv sc0 sc1 (S14): assumed twice the device-scope fixed part (2 × ${c.l2} cycles)${at}`,
      },
    },
  ];
}

/** The five CDNA coherence scopes, in order wave, group, chiplet, device, system. */
export function cdnaCoherenceScopes(p: CdnaCoherenceParams): CoherenceScope[] {
  return scopeSpecs(p).map((s) => s.scope);
}

/** Provenance of every number in `cdnaCoherenceScopes(p)`, keyed by JSON pointer (`/coherence/i/...`). */
export function cdnaCoherenceSources(p: CdnaCoherenceParams): Record<string, string> {
  const out: Record<string, string> = {};
  scopeSpecs(p).forEach((s, i) => {
    out[`/coherence/${i}/atomicLatencyNs`] = s.sources.atomicLatencyNs;
    out[`/coherence/${i}/release/fixedNs`] = s.sources.releaseFixedNs;
    out[`/coherence/${i}/acquire/fixedNs`] = s.sources.acquireFixedNs;
  });
  return out;
}
