/**
 * @fleet/attention-study — NUMA-aware workgroup mapping for FlashAttention-2 on chiplet
 * GPUs: the chiplet remaps, the four attention mappings, FA2 forward/backward
 * decompositions with their footprints, the study (single points and the paper's grid) run
 * as a task graph per launch on core's memory system and kernel runtime, and its
 * validation against the published numbers (`attentionValidation`, `NUMA_ATTENTION_RESULTS`).
 */
export * from './remaps.js';
export * from './mappings.js';
export * from './decomposition.js';
export * from './graph.js';
export * from './study.js';
export * from './validation.js';
