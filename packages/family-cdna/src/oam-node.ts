/**
 * The CDNA OAM platform: eight GPUs on one baseboard, each with a direct xGMI link to every
 * other (seven links per GPU). A device passes its link's name, rate and provenance.
 */
import type { NodeTopology } from '@fleet/core';

/** What one CDNA platform sets; the rest of its node is the family's. */
export interface CdnaOamNodeSpec {
  name: string;
  description: string;
  device: string;
  /** The interconnect's name, e.g. `'xGMI (Infinity Fabric)'`. */
  linkName: string;
  linkBytesPerNsPerDirection: number;
  latencyNs: number;
  /** Provenance of every value, as in `NodeTopology.sources`. */
  sources: Record<string, string>;
}

/** An 8-GPU full xGMI mesh node: 7 links per GPU, one to each peer. */
export function cdnaOamNode(spec: CdnaOamNodeSpec): NodeTopology {
  return {
    name: spec.name,
    description: spec.description,
    device: spec.device,
    devices: 8,
    interconnect: {
      kind: 'full-mesh',
      name: spec.linkName,
      linksPerDevice: 7,
      linkBytesPerNsPerDirection: spec.linkBytesPerNsPerDirection,
      latencyNs: spec.latencyNs,
    },
    sources: spec.sources,
  };
}
