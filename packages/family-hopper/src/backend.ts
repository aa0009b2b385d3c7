/**
 * A Hopper device as a Fleet backend: the device package supplies its topology, node and
 * runtime tuning and names the calibration its kernels are priced with; the family binds core's
 * roofline cost model, the cluster collectives and the library model, the same way for every
 * Hopper device.
 */
import {
  API_VERSION,
  ContainerModule,
  RooflineCostModel,
  TOKENS,
  defineBackend,
  type BackendDescriptor,
  type BackendTuning,
  type NodeSpec,
  type Topology,
} from '@fleet/core';
import type { HopperCalibration } from './calibration.js';
import { kernelLibraryOn } from './memory-transfer.js';

/** What a Hopper device package brings to the family. */
export interface HopperDevice {
  /** What users type (`--backends h100`). */
  name: string;
  topology: Topology;
  /** How the policies' runtimes sit on the device (the family's `tuning` for a GH100 die). */
  tuning: BackendTuning;
  node: NodeSpec;
  /** Cost parameters, library model and collectives; `H100_CALIBRATION` is the one measured set. */
  calibration: HopperCalibration;
}

/** The device's bindings: topology, cost model, its tuning, the cluster collectives, the library model, the node. */
export function hopperModule(d: HopperDevice): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Topology).toConstantValue(d.topology);
    bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(d.topology, d.calibration.params));
    bind(TOKENS.Tuning).toConstantValue(d.tuning);
    for (const c of d.calibration.collectives) bind(TOKENS.Collective).toConstantValue(c);
    bind(TOKENS.KernelLibrary).toConstantValue(kernelLibraryOn(d.calibration.kernelLibrary, d.topology.memory.hbm));
    bind(TOKENS.Node).toConstantValue(d.node);
  });
}

/** The device's descriptor (a backend package's default export). */
export function hopperBackend(d: HopperDevice): BackendDescriptor {
  return defineBackend({ name: d.name, apiVersion: API_VERSION, module: hopperModule(d) });
}
