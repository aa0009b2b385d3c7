import { schemaValidator } from '../topology/schema-compiler.js';
import { lineError } from '../model/messages.js';
import { describeAjvError } from '../topology/validate.js';
import type { NodeSpec } from './collectives.js';
import { validateNodeTopology } from './validate.js';

const us = { type: 'number', minimum: 0, maximum: 1e6 } as const;
const factor = { type: 'number', exclusiveMinimum: 0, maximum: 1 } as const;
const gbps = { type: 'number', exclusiveMinimum: 0, maximum: 1e6 } as const;
/** One value of `item`'s schema per protocol, all three present. */
const perProtocol = <T>(item: T) =>
  ({
    type: 'object',
    additionalProperties: false,
    required: ['LL', 'LL128', 'Simple'],
    properties: { LL: item, LL128: item, Simple: item },
  }) as const;
const latencies = {
  type: 'object',
  additionalProperties: false,
  required: ['ring', 'tree'],
  properties: { ring: perProtocol(us), tree: perProtocol(us) },
} as const;
const table = { type: 'array', maxItems: 64, items: factor } as const;
const threads = { type: 'integer', minimum: 32, maximum: 1024 } as const;
const perThread = { type: 'integer', minimum: 1, maximum: 4096 } as const;
/** A rate while the buffer stays in the L2 and one beyond, data bytes per ns. */
const resident = {
  type: 'object',
  additionalProperties: false,
  required: ['resident', 'streamed'],
  properties: { resident: gbps, streamed: gbps },
} as const;

/** The data of a `CollectiveLibrary`: every constant bounded, so a unit slip fails at load. */
const validateLibrary = schemaValidator({
  type: 'object',
  additionalProperties: false,
  required: [
    'name',
    'baseLatencyUs',
    'hopLatencyUs',
    'linkEfficiency',
    'channels',
    'protocols',
    'llFactor',
    'llMaxBusGBps',
    'll128Factor',
    'll128MaxPerChannelGBps',
    'treeFactor',
    'treeMaxPerChannelGBps',
    'treeLlFactor',
    'treeLl128Factor',
    'sources',
  ],
  properties: {
    name: { type: 'string', minLength: 1 },
    baseLatencyUs: latencies,
    hopLatencyUs: latencies,
    linkEfficiency: factor,
    channels: { type: 'integer', minimum: 1, maximum: 1024 },
    protocols: { type: 'array', minItems: 1, uniqueItems: true, items: { enum: ['LL', 'LL128', 'Simple'] } },
    llFactor: factor,
    llMaxBusGBps: gbps,
    ll128Factor: factor,
    ll128MaxPerChannelGBps: gbps,
    treeFactor: factor,
    treeMaxPerChannelGBps: gbps,
    treeLlFactor: factor,
    treeLl128Factor: factor,
    treeCorrection: perProtocol(table),
    runtime: {
      type: 'object',
      additionalProperties: false,
      required: ['channels', 'threads', 'threadThresholdBytes', 'halveThreads', 'simpleChunkBytes', 'simpleSliceBytes'],
      properties: {
        channels: { type: 'integer', minimum: 1, maximum: 1024 },
        threads: perProtocol(threads),
        threadThresholdBytes: perProtocol(perThread),
        halveThreads: { type: 'boolean' },
        simpleChunkBytes: { type: 'integer', minimum: 1, maximum: 2 ** 30 },
        simpleSliceBytes: { type: 'integer', minimum: 1, maximum: 2 ** 30 },
        opRate: {
          type: 'object',
          additionalProperties: false,
          properties: { LL: resident, LL128: resident },
        },
        residentBytes: { type: 'number', minimum: 0, maximum: 2 ** 40 },
        ringExtraUs: { type: 'object', additionalProperties: false, properties: { LL: us, LL128: us, Simple: us } },
      },
    },
    custom: {
      type: 'object',
      additionalProperties: false,
      required: ['maxBytes', 'barrierUs', 'name'],
      properties: { maxBytes: { type: 'number', minimum: 0, maximum: 2 ** 40 }, barrierUs: us, name: { type: 'string' } },
    },
    sources: { type: 'object', additionalProperties: { type: 'string' } },
  },
});

/** Check a backend's `TOKENS.Node` binding: its node topology and its library's constants. */
export function checkNodeSpec(value: unknown, origin: string, backendName: string): NodeSpec {
  if (typeof value !== 'object' || value === null) throw lineError(`${origin}: TOKENS.Node must be {topology, library}`);
  const v = value as Partial<NodeSpec>;
  const topology = validateNodeTopology(v.topology, origin);
  if (topology.device !== backendName)
    throw lineError(`invalid node topology from ${origin}: /device: '${topology.device}' is not this backend ('${backendName}')`);
  if (!validateLibrary(v.library)) throw lineError(`${origin}: TOKENS.Node library ${describeAjvError(validateLibrary.errors![0]!)}`);
  return { topology, library: v.library as NodeSpec['library'] };
}
