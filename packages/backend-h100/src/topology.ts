/**
 * NVIDIA H100 SXM5 80 GB as a Fleet topology. The H100 SXM5 is the Hopper family's reference
 * part: every Hopper measurement Fleet has was taken on it, and the family's parameters are
 * derived against its memory, so the topology (with the provenance of every number) ships in
 * @fleet/family-hopper as `H100_SXM5`, where the H200 can start from it without depending on
 * this package. This package is that part as a backend.
 */
import type { Topology } from '@fleet/core';
import { H100_SXM5 } from '@fleet/family-hopper';

export const topology: Topology = H100_SXM5;
