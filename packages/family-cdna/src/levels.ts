/** How Fleet's four task levels land on a CDNA GPU: wavefront, CU, XCD, device. */
import type { LevelMapping } from '@fleet/core';

export function cdnaLevels(): LevelMapping {
  return {
    wavefront: { unit: 'wavefront', lanes: 64 },
    cu: { unit: 'cu' },
    chiplet: { unit: 'xcd' },
    device: { unit: 'device' },
  };
}

/** Provenance of the numbers in `cdnaLevels()`. */
export function cdnaLevelSources(): Record<string, string> {
  return { '/levels/wavefront/lanes': 'DS S1/S1b: wave64 on CDNA3 and CDNA4' };
}
