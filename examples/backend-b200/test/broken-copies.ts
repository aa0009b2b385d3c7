/**
 * Broken copies of the B200 descriptor, built with @fleet/core's public API only: each one has
 * exactly one mistake a backend author makes, so the error it produces can be checked.
 */
import { ContainerModule, RooflineCostModel, TOKENS, defineBackend, type BackendDescriptor, type Topology } from '@fleet/core';
import b200, { params, topology, tuning } from '../src/index.js';

/** The descriptor with another `apiVersion`. */
export function withApiVersion(apiVersion: string): BackendDescriptor {
  return { ...b200, apiVersion };
}

/** A module binding `t` (any data) as the topology, and the real cost model and policies. */
export function withTopology(t: unknown): BackendDescriptor {
  return defineBackend({
    name: 'b200',
    apiVersion: '2.0',
    module: new ContainerModule(({ bind }) => {
      bind(TOKENS.Topology).toConstantValue(t);
      bind(TOKENS.CostModel).toConstantValue(new RooflineCostModel(topology, params));
      bind(TOKENS.Tuning).toConstantValue(tuning);
    }),
  });
}

/** The topology with the L2 organisation misspelt: fails the schema's enum at /memory/l2/organisation. */
export function misspeltL2(): Topology {
  return { ...topology, memory: { ...topology.memory, l2: { ...topology.memory.l2, organisation: 'split' as 'shared' } } };
}

/** A module that forgets `TOKENS.CostModel`. */
export function withoutCostModel(): BackendDescriptor {
  return defineBackend({
    name: 'b200',
    apiVersion: '2.0',
    module: new ContainerModule(({ bind }) => {
      bind(TOKENS.Topology).toConstantValue(topology);
      bind(TOKENS.Tuning).toConstantValue(tuning);
    }),
  });
}
