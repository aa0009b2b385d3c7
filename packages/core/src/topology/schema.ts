/**
 * JSON Schema (draft 2020-12) for `Topology`. Validated with ajv in strict mode.
 *
 * Every number has a range: a value far outside anything a GPU has is a corrupt file or a
 * unit mistake, and left through it would exhaust memory (caches are simulated block by
 * block) or push the simulated clock where its resolution fails (`1e308` ns latencies,
 * `5e-324` B/ns bandwidths).
 * The bounds leave well over an order of magnitude of headroom over today's parts.
 */

/** Bandwidths (B/ns) and throughputs (FLOP/ns): 1 GB/s to 1 PB/s. */
const rate = { type: 'number', minimum: 1, maximum: 1e6 } as const;
/** Latencies and fixed costs, ns: up to a millisecond. */
const latency = { type: 'number', minimum: 0, maximum: 1e6 } as const;
const count = (max: number) => ({ type: 'integer', minimum: 1, maximum: max }) as const;
/** One simulated cache instance: up to 4 GiB (today's largest GPU cache is 256 MiB). */
export const MAX_CACHE_BYTES = 2 ** 32;

const cacheProps = {
  capacityBytes: count(MAX_CACHE_BYTES),
  lineBytes: count(65536),
  associativity: count(1024),
  bandwidthBytesPerNs: rate,
  latencyNs: latency,
  writePolicy: { enum: ['write-back', 'write-through'] },
  replacement: { const: 'lru' },
} as const;
const cacheRequired = Object.keys(cacheProps);

export const topologySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://fleet.dev/schemas/topology.json',
  title: 'Fleet hardware topology',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'clockGHz', 'partitions', 'computeUnit', 'memory', 'coherence', 'levels', 'sources'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
    description: { type: 'string' },
    clockGHz: { type: 'number', minimum: 1e-3, maximum: 100 },
    partitions: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'computeUnits'],
      properties: {
        kind: { type: 'string', minLength: 1 },
        computeUnits: { type: 'array', minItems: 1, maxItems: 1024, items: count(4096) },
      },
    },
    computeUnit: {
      type: 'object',
      additionalProperties: false,
      required: ['simdWidth', 'simdsPerUnit', 'registerFileBytes', 'sharedMemoryBytes', 'l1', 'matrixFlopsPerNs', 'vectorFlopsPerNs', 'maxBandwidthBytesPerNs'],
      properties: {
        simdWidth: count(1024),
        simdsPerUnit: count(1024),
        registerFileBytes: count(2 ** 32),
        sharedMemoryBytes: count(2 ** 32),
        l1: { $ref: '#/$defs/cache' },
        matrixFlopsPerNs: {
          type: 'object',
          additionalProperties: false,
          required: ['bf16', 'fp16'],
          properties: { bf16: rate, fp16: rate, fp8: rate },
        },
        vectorFlopsPerNs: rate,
        maxBandwidthBytesPerNs: rate,
      },
    },
    memory: {
      type: 'object',
      additionalProperties: false,
      required: ['l2', 'hbm'],
      properties: {
        l2: {
          type: 'object',
          additionalProperties: false,
          required: [...cacheRequired, 'organisation'],
          properties: {
            ...cacheProps,
            organisation: { enum: ['per-partition', 'shared'] },
            halves: count(64),
            farExtraLatencyNs: latency,
          },
        },
        llc: {
          type: 'object',
          additionalProperties: false,
          required: [...cacheRequired, 'memorySide'],
          properties: { ...cacheProps, memorySide: { const: true } },
        },
        hbm: {
          type: 'object',
          additionalProperties: false,
          required: ['capacityBytes', 'peakBandwidthBytesPerNs', 'achievableBandwidthBytesPerNs', 'latencyNs'],
          properties: {
            capacityBytes: count(2 ** 50),
            peakBandwidthBytesPerNs: rate,
            achievableBandwidthBytesPerNs: rate,
            latencyNs: latency,
            loadedLatency: {
              type: 'object',
              additionalProperties: false,
              required: ['queueNs', 'saturationBytesPerNs'],
              properties: { queueNs: latency, saturationBytesPerNs: rate },
            },
          },
        },
      },
    },
    coherence: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['scope', 'atomicResolvesAt', 'atomicLatencyNs', 'release', 'acquire'],
        properties: {
          scope: { enum: ['wave', 'group', 'chiplet', 'device', 'system'] },
          atomicResolvesAt: { enum: ['l1', 'lds', 'dsmem', 'l2', 'llc', 'memory'] },
          atomicLatencyNs: latency,
          release: {
            type: 'object',
            additionalProperties: false,
            required: ['fixedNs', 'writeBackDirty'],
            properties: { fixedNs: latency, writeBackDirty: { type: 'boolean' } },
          },
          acquire: {
            type: 'object',
            additionalProperties: false,
            required: ['fixedNs', 'invalidates'],
            properties: { fixedNs: latency, invalidates: { type: 'boolean' } },
          },
        },
      },
    },
    levels: {
      type: 'object',
      additionalProperties: false,
      required: ['wavefront', 'cu', 'chiplet', 'device'],
      properties: {
        wavefront: {
          type: 'object',
          additionalProperties: false,
          required: ['unit', 'lanes'],
          properties: { unit: { type: 'string' }, lanes: count(1024) },
        },
        cu: { type: 'object', additionalProperties: false, required: ['unit'], properties: { unit: { type: 'string' } } },
        chiplet: {
          type: 'object',
          additionalProperties: false,
          required: ['unit'],
          properties: { unit: { type: 'string' }, maxSize: count(1024) },
        },
        device: { type: 'object', additionalProperties: false, required: ['unit'], properties: { unit: { type: 'string' } } },
      },
    },
    sources: { type: 'object', additionalProperties: { type: 'string' } },
  },
  $defs: {
    cache: { type: 'object', additionalProperties: false, required: cacheRequired, properties: cacheProps },
  },
} as const;
