/**
 * An sm80 device as a Fleet backend: a device package supplies its datasheet spec; the family
 * builds the topology, the roofline cost model, the tuning and the kernel library from it. No
 * cluster collectives are bound (there are no clusters) and no node (tensor parallelism over
 * these parts is not modelled).
 */
import { API_VERSION, ContainerModule, defineBackend, RooflineCostModel, TOKENS, type BackendDescriptor } from '@fleet/core';
import { sm80KernelLibrary } from './ampere-libraries.js';
import { sm80Tuning } from './ampere-tuning.js';
import { sm80Params } from './cost-params.js';
import type { Sm80DeviceSpec } from './device-spec.js';
import { sm80Topology } from './topology.js';

export function ampereModule(spec: Sm80DeviceSpec): ContainerModule {
  const topology = sm80Topology(spec);
  return new ContainerModule(({ bind }) => {
    bind(TOKENS.Topology).toConstantValue(topology);
    bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(topology, sm80Params(topology)));
    bind(TOKENS.Tuning).toConstantValue(sm80Tuning(spec));
    bind(TOKENS.KernelLibrary).toConstantValue(sm80KernelLibrary(spec, topology));
  });
}

/** The device's descriptor (a backend package's default export). */
export function ampereBackend(spec: Sm80DeviceSpec): BackendDescriptor {
  return defineBackend({ name: spec.name, apiVersion: API_VERSION, module: ampereModule(spec) });
}
