import { quotedFields } from '@fleet/core';

/**
 * The flag that sets each library option field. Library errors name the field
 * (`` `maxSimSteps` ``, so that TypeScript callers read their own option names); the CLI
 * prints the flag its user typed (`--max-sim-steps`).
 */
export const FLAG_OF_FIELD: Readonly<Record<string, string>> = {
  // fleet compare, sweep, report, trace (@fleet/ops predictions)
  prompt: '--prompt',
  decode: '--decode',
  chunk: '--chunk',
  layers: '--sample-layers',
  maxSimSteps: '--max-sim-steps',
  tp: '--tp',
  ep: '--ep',
  weights: '--weights',
  routing: '--routing',
  attentionMapping: '--attention-mapping',
  // schedule overrides (@fleet/ops PolicyOverrides), named in policies' refusals
  weightPolicy: '--weight-cache',
  storePolicy: '--store-cache',
  fuseActivation: '--fuse-silu',
  traversal: '--traversal',
  twoLevelCounting: '--two-level',
  expertPlacement: '--expert-placement',
  // fleet op --op attention-module
  context: '--context',
  clusterSize: '--cluster-size',
  clusterDataflow: '--dataflow',
  dsmem: '--dsmem',
  // fleet collective (@fleet/core node collectives)
  op: '--op',
  bytes: '--bytes',
  devices: '--devices',
  // fleet attention (@fleet/ops attention shapes)
  heads: '--heads',
  kvHeads: '--kv-heads',
  seq: '--seq',
  batch: '--batch',
  headDim: '--head-dim',
  pass: '--pass',
};

/** A library error message as the CLI prints it: each quoted option field becomes its flag. */
export function withFlags(message: string): string {
  return quotedFields(message, (field) => (Object.hasOwn(FLAG_OF_FIELD, field) ? FLAG_OF_FIELD[field] : undefined));
}
