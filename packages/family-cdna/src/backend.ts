/**
 * A CDNA device as a Fleet backend: the device package supplies its topology, calibrated cost
 * parameters, library model, runtime tuning and node; the family binds them with its cost model
 * (`CdnaCostModel`), so every CDNA device is wired the same way.
 */
import {
  API_VERSION,
  ContainerModule,
  TOKENS,
  defineBackend,
  type BackendDescriptor,
  type KernelLibrary,
  type BackendTuning,
  type NodeSpec,
  type RooflineParams,
  type Topology,
} from '@fleet/core';
import { CdnaCostModel } from './cost-model.js';

/** What a CDNA device package brings to the family. */
export interface CdnaDevice {
  /** What users type (`--backends mi300x`). */
  name: string;
  topology: Topology;
  /** The device's calibrated `RooflineParams` (each value with its provenance). */
  params: RooflineParams;
  /** Usually `cdnaKernelLibrary(spec)` with the device's `CdnaLibrarySpec`. */
  kernelLibrary: KernelLibrary;
  /** How the policies' runtimes sit on the device (usually `cdnaTuning(workersPerXcd)`). */
  tuning: BackendTuning;
  node: NodeSpec;
}

/** The device's bindings: topology, `CdnaCostModel`, its tuning, the library model, the node. */
export function cdnaModule(d: CdnaDevice): ContainerModule {
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Topology).toConstantValue(d.topology);
    bind(TOKENS.CostModel).toConstantValue(new CdnaCostModel(d.topology, d.params));
    bind(TOKENS.Tuning).toConstantValue(d.tuning);
    bind(TOKENS.KernelLibrary).toConstantValue(d.kernelLibrary);
    bind(TOKENS.Node).toConstantValue(d.node);
  });
}

/** The device's descriptor (a backend package's default export). */
export function cdnaBackend(d: CdnaDevice): BackendDescriptor {
  return defineBackend({ name: d.name, apiVersion: API_VERSION, module: cdnaModule(d) });
}
