/**
 * The H200 bindings: its topology, and everything else from the H100 package — cost
 * parameters, tuning, cluster collectives and kernel library share the H100's
 * calibration (the same GH100 die, clocks and software stack).
 */
import { ContainerModule, RooflineCostModel, TOKENS } from '@fleet/core';
import { collectives, kernelLibrary, params, tuning } from '@fleet/backend-h100';
import { node } from './node.js';
import { topology } from './topology.js';

export const module = new ContainerModule(({ bind }) => {
  bind(TOKENS.Topology).toConstantValue(topology);
  bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(topology, params));
  bind(TOKENS.Tuning).toConstantValue(tuning);
  for (const c of collectives) bind(TOKENS.Collective).toConstantValue(c);
  bind(TOKENS.KernelLibrary).toConstantValue(kernelLibrary);
  bind(TOKENS.Node).toConstantValue(node);
});
