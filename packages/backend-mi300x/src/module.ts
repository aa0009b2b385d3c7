/** The MI300X bindings: one topology, one cost model, one `PolicySupport` per policy, the library model. */
import { ContainerModule, TOKENS } from '@fleet/core';
import { CdnaCostModel } from './cdna/cost-model.js';
import { kernelLibrary } from './kernel-library.js';
import { params } from './cost-params.js';
import { policies } from './policies.js';
import { topology } from './topology.js';
import { node } from './node.js';

export const module = new ContainerModule(({ bind }) => {
  bind(TOKENS.Topology).toConstantValue(topology);
  bind(TOKENS.CostModel).toConstantValue(new CdnaCostModel(topology, params));
  for (const p of policies) bind(TOKENS.PolicySupport).toConstantValue(p);
  bind(TOKENS.KernelLibrary).toConstantValue(kernelLibrary);
  bind(TOKENS.Node).toConstantValue(node);
});
