/** The H100 bindings: topology, cost model, its tuning, the cluster collectives. */
import { ContainerModule, RooflineCostModel, TOKENS } from '@fleet/core';
import { collectives } from './collectives.js';
import { kernelLibrary } from './kernel-library.js';
import { params } from './cost-params.js';
import { tuning } from './policies.js';
import { topology } from './topology.js';
import { node } from './node.js';

export const module = new ContainerModule(({ bind }) => {
  bind(TOKENS.Topology).toConstantValue(topology);
  bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(topology, params));
  bind(TOKENS.Tuning).toConstantValue(tuning);
  for (const c of collectives) bind(TOKENS.Collective).toConstantValue(c);
  bind(TOKENS.KernelLibrary).toConstantValue(kernelLibrary);
  bind(TOKENS.Node).toConstantValue(node);
});
