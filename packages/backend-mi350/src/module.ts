/** The MI350 bindings: one topology, one cost model, one `PolicySupport` per policy. */
import { ContainerModule, RooflineCostModel, TOKENS } from '@fleet/core';
import { params } from './cost-params.js';
import { policies } from './policies.js';
import { topology } from './topology.js';
import { node } from './node.js';

export const module = new ContainerModule(({ bind }) => {
  bind(TOKENS.Topology).toConstantValue(topology);
  bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(topology, params));
  for (const p of policies) bind(TOKENS.PolicySupport).toConstantValue(p);
  bind(TOKENS.Node).toConstantValue(node);
});
