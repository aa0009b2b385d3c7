/** JSON Schema (draft 2020-12) for `NodeTopology`; ajv strict mode, ranges as in the device schema. */
export const nodeTopologySchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  $id: 'https://fleet.dev/schemas/node-topology.json',
  title: 'Fleet node topology',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'description', 'device', 'devices', 'interconnect', 'sources'],
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
    description: { type: 'string' },
    device: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]*$' },
    devices: { type: 'integer', minimum: 1, maximum: 1024 },
    interconnect: {
      type: 'object',
      additionalProperties: false,
      required: ['kind', 'name', 'linksPerDevice', 'linkBytesPerNsPerDirection', 'latencyNs'],
      properties: {
        kind: { enum: ['switch', 'full-mesh'] },
        name: { type: 'string', minLength: 1 },
        linksPerDevice: { type: 'integer', minimum: 1, maximum: 1024 },
        // 0.1 GB/s to 10 TB/s per link and direction
        linkBytesPerNsPerDirection: { type: 'number', minimum: 0.1, maximum: 1e4 },
        latencyNs: { type: 'number', minimum: 0, maximum: 1e6 },
      },
    },
    sources: { type: 'object', additionalProperties: { type: 'string' } },
  },
} as const;
