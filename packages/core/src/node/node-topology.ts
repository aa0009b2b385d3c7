/**
 * A node: N devices of one backend and the interconnect between them, as data with
 * provenance (JSON Schema in `schema.ts`, validated with ajv in strict mode).
 *
 * Two interconnect shapes cover today's 8-GPU baseboards:
 * - `switch` (NVLink through NVSwitch): every device reaches every other through all of its
 *   links, so any group of devices gets each device's whole link bandwidth;
 * - `full-mesh` (AMD xGMI on OAM platforms): each pair of devices shares its own links, so a
 *   group of D devices reaches only the links to its D − 1 peers.
 *
 * Units as in `Topology`: bytes, ns, bytes/ns (1 GB/s = 1 B/ns).
 */

export type InterconnectKind = 'switch' | 'full-mesh';

export interface InterconnectSpec {
  kind: InterconnectKind;
  /** What the vendor calls it (`NVLink 4 / NVSwitch 3`, `xGMI (Infinity Fabric)`). */
  name: string;
  /** Links leaving one device. */
  linksPerDevice: number;
  /** Peak bandwidth of one link in one direction, bytes/ns. */
  linkBytesPerNsPerDirection: number;
  /** One-way latency of a small remote store or signal (put-with-signal), ns. */
  latencyNs: number;
}

export interface NodeTopology {
  name: string;
  description: string;
  /** The backend every device of the node is (a node holds one kind of device). */
  device: string;
  devices: number;
  interconnect: InterconnectSpec;
  /** Provenance: JSON pointer → source, as in `Topology.sources`. */
  sources: Record<string, string>;
}

/** Links one device of a `group`-device subset can drive at once (its links to the group's other members). */
export function groupLinks(node: NodeTopology, group: number): number {
  const ic = node.interconnect;
  if (group <= 1) return 0;
  if (ic.kind === 'switch') return ic.linksPerDevice;
  // Full mesh: the links are spread evenly over the other devices of the node.
  const perPeer = ic.linksPerDevice / Math.max(1, node.devices - 1);
  return Math.min(ic.linksPerDevice, perPeer * (group - 1));
}

/** Bandwidth one device of a `group`-device subset can send (and receive) at once, bytes/ns per direction. */
export function groupBytesPerNs(node: NodeTopology, group: number): number {
  return groupLinks(node, group) * node.interconnect.linkBytesPerNsPerDirection;
}

/** Bandwidth between one pair of devices, bytes/ns per direction. */
export function peerBytesPerNs(node: NodeTopology): number {
  return groupBytesPerNs(node, 2);
}
