/**
 * NUMA-aware workgroup mapping for FlashAttention-2 on chiplet GPUs: the chiplet remaps,
 * the four attention mappings, FA2 forward/backward decompositions with their footprints,
 * the study simulated on core's memory system and kernel runtime (a task graph per launch;
 * the specialised simulator kept as engine `private`), the study (single points and the paper's grid)
 * and its validation against published claims.
 */
export * from './remaps.js';
export * from './mappings.js';
export * from './decomposition.js';
export * from './graph.js';
export { AttentionSimulator, type SimulationPlan, type SimulationResult, type SimulationTotals } from './simulator.js';
export * from './study.js';
export * from './validation.js';
