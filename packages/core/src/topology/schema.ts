/** JSON Schema (draft 2020-12) for `Topology`. Validated with ajv in strict mode. */

const positive = { type: 'number', exclusiveMinimum: 0 } as const;
const nonNegative = { type: 'number', minimum: 0 } as const;
const positiveInt = { type: 'integer', minimum: 1 } as const;

const cacheProps = {
  capacityBytes: positiveInt,
  lineBytes: positiveInt,
  associativity: positiveInt,
  bandwidthBytesPerNs: positive,
  latencyNs: nonNegative,
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
    clockGHz: positive,
    partitions: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'computeUnits'],
      properties: {
        kind: { type: 'string', minLength: 1 },
        computeUnits: { type: 'array', minItems: 1, maxItems: 1024, items: positiveInt },
      },
    },
    computeUnit: {
      type: 'object',
      additionalProperties: false,
      required: ['simdWidth', 'simdsPerUnit', 'registerFileBytes', 'sharedMemoryBytes', 'l1', 'matrixFlopsPerNs', 'vectorFlopsPerNs', 'maxBandwidthBytesPerNs'],
      properties: {
        simdWidth: positiveInt,
        simdsPerUnit: positiveInt,
        registerFileBytes: positiveInt,
        sharedMemoryBytes: positiveInt,
        l1: { $ref: '#/$defs/cache' },
        matrixFlopsPerNs: {
          type: 'object',
          additionalProperties: false,
          required: ['bf16', 'fp16'],
          properties: { bf16: positive, fp16: positive, fp8: positive },
        },
        vectorFlopsPerNs: positive,
        maxBandwidthBytesPerNs: positive,
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
            halves: positiveInt,
            farExtraLatencyNs: nonNegative,
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
            capacityBytes: positiveInt,
            peakBandwidthBytesPerNs: positive,
            achievableBandwidthBytesPerNs: positive,
            latencyNs: nonNegative,
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
          atomicLatencyNs: nonNegative,
          release: {
            type: 'object',
            additionalProperties: false,
            required: ['fixedNs', 'writeBackDirty'],
            properties: { fixedNs: nonNegative, writeBackDirty: { type: 'boolean' } },
          },
          acquire: {
            type: 'object',
            additionalProperties: false,
            required: ['fixedNs', 'invalidates'],
            properties: { fixedNs: nonNegative, invalidates: { type: 'boolean' } },
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
          properties: { unit: { type: 'string' }, lanes: positiveInt },
        },
        cu: { type: 'object', additionalProperties: false, required: ['unit'], properties: { unit: { type: 'string' } } },
        chiplet: {
          type: 'object',
          additionalProperties: false,
          required: ['unit'],
          properties: { unit: { type: 'string' }, maxSize: positiveInt },
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
