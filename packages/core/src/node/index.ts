export * from './node-topology.js';
export { nodeTopologySchema } from './schema.js';
export { validateNodeTopology } from './validate.js';
export * from './collectives.js';
