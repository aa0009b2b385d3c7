/**
 * Occupancy: how many workgroups (CTAs) of a kernel fit on one compute unit at once, from the
 * unit's resources and the kernel's. The same rule holds on CDNA (waves per SIMD, VGPRs,
 * LDS) and on NVIDIA (warps per SM sub-partition, registers, shared memory).
 */
export interface ComputeResources {
  /** Threads per wave (64 on CDNA, 32 on NVIDIA). */
  waveSize: number;
  /** SIMDs (CDNA) or SM sub-partitions (NVIDIA) a unit's waves are spread over. */
  simds: number;
  /** Most waves one SIMD holds at once. */
  maxWavesPerSimd: number;
  /** 32-bit registers per SIMD (all its lanes): a wave uses registersPerThread × waveSize. */
  registersPerSimd: number;
  /** Registers are allocated per thread in multiples of this. */
  registerGranularity: number;
  /** LDS / shared memory per unit, bytes. */
  sharedBytes: number;
  /** Most workgroups resident on a unit. */
  maxBlocks: number;
}

/** What one workgroup of a kernel asks for. */
export interface KernelResources {
  threads: number;
  registersPerThread: number;
  sharedBytes: number;
}

export interface Occupancy {
  /** Workgroups resident per unit (0 if one does not fit). */
  blocks: number;
  /** Waves resident per SIMD (rounded up over the unit's SIMDs). */
  wavesPerSimd: number;
  /** The resource that set the limit. */
  limitedBy: 'waves' | 'registers' | 'shared' | 'blocks';
}

export function occupancy(cu: ComputeResources, k: KernelResources): Occupancy {
  const waves = Math.ceil(k.threads / cu.waveSize);
  const wavesPerSimdPerBlock = waves / cu.simds;
  const regs = Math.ceil(k.registersPerThread / cu.registerGranularity) * cu.registerGranularity * cu.waveSize;
  const limits: [Occupancy['limitedBy'], number][] = [
    ['waves', Math.floor((cu.maxWavesPerSimd * cu.simds) / waves)],
    ['registers', regs > 0 ? (Math.floor(cu.registersPerSimd / regs) * cu.simds) / waves : Infinity],
    ['shared', k.sharedBytes > 0 ? Math.floor(cu.sharedBytes / k.sharedBytes) : Infinity],
    ['blocks', cu.maxBlocks],
  ];
  let best = limits[0]!;
  for (const l of limits) if (l[1] < best[1]) best = l;
  const blocks = Math.max(0, Math.floor(best[1]));
  return { blocks, wavesPerSimd: Math.ceil(blocks * wavesPerSimdPerBlock), limitedBy: best[0] };
}

/**
 * A persistent megakernel compiles every task type into one function, so the compiler
 * allocates for the most demanding one: its resources are the maximum over the union.
 */
export function unionResources(kernels: readonly KernelResources[]): KernelResources {
  return kernels.reduce(
    (a, k) => ({
      threads: Math.max(a.threads, k.threads),
      registersPerThread: Math.max(a.registersPerThread, k.registersPerThread),
      sharedBytes: Math.max(a.sharedBytes, k.sharedBytes),
    }),
    { threads: 0, registersPerThread: 0, sharedBytes: 0 },
  );
}
