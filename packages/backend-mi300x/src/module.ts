/** The MI300X bindings: one topology, one cost model, its tuning, the library model. */
import { ContainerModule, TOKENS } from '@fleet/core';
import { CdnaCostModel } from './cdna/cost-model.js';
import { kernelLibrary } from './kernel-library.js';
import { params } from './cost-params.js';
import { tuning } from './policies.js';
import { topology } from './topology.js';
import { node } from './node.js';

export const module = new ContainerModule(({ bind }) => {
  bind(TOKENS.Topology).toConstantValue(topology);
  bind(TOKENS.CostModel).toConstantValue(new CdnaCostModel(topology, params));
  bind(TOKENS.Tuning).toConstantValue(tuning);
  bind(TOKENS.KernelLibrary).toConstantValue(kernelLibrary);
  bind(TOKENS.Node).toConstantValue(node);
});
