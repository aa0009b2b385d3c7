/** The B200 bindings: one topology, one cost model, its tuning. */
import { ContainerModule, RooflineCostModel, TOKENS } from '@fleet/core';
import { params } from './cost-params.js';
import { tuning } from './tuning.js';
import { topology } from './topology.js';

export const module = new ContainerModule(({ bind }) => {
  bind(TOKENS.Topology).toConstantValue(topology);
  bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(topology, params));
  bind(TOKENS.Tuning).toConstantValue(tuning);
});
