/**
 * The FLEET paper's published Qwen3-8B decode numbers on one MI350X, as Fleet validates
 * against them. Values marked `calibration` may set parameters (two do: see
 * `CDNA_BYTES_IN_FLIGHT_PER_CU` and `VLLM_EAGER_LAUNCH_NS` in @fleet/family-cdna); every
 * `claim` must come out of the model.
 */
export const FLEET_PAPER_SOURCE =
  'FLEET (AMD Research, 2026, arXiv 2604.15379): Qwen3-8B bf16 decode on one AMD Instinct MI350X; 64 prompt + 1024 decode tokens; decode-only TPOT from on-GPU timestamps; L2/HBM from rocprofiler-sdk device counters';

export type FleetPolicy = 'kernel-per-op' | 'mirage' | 'fleet-mtile' | 'fleet-msplit';

export interface FleetPaperDataset {
  source: string;
  model: 'qwen3-8b';
  backend: 'mi350';
  promptTokens: number;
  decodeTokens: number;
  calibration: {
    tpotMsBatch1: Record<FleetPolicy, number>;
    l2HitRateBatch1: Record<Exclude<FleetPolicy, 'kernel-per-op'>, number>;
    tasksPerLayerBatch1: { standardCuTasks: number; fleet: number };
  };
  claims: {
    /** TPOT speedup of both FLEET traversals over kernel-per-op at these batches. */
    speedupOverKernelPerOp: { batches: number[]; range: [number, number] };
    /** TPOT speedup of both FLEET traversals over mirage at these batches. */
    speedupOverMirage: { batches: number[]; range: [number, number] };
    /** fleet-mtile over mirage at larger batch. */
    mtileOverMirage: { batch: number; value: number }[];
    msplitOverMirage: { batch: number; value: number }[];
    /** Reduction of HBM reads (rocprofiler's L2→fabric read counters) of fleet-mtile vs mirage. */
    hbmReadReduction: { batch: number; value: number };
    /** L2 hit rates from the paper's abstract (seedcode.md §5). */
    l2HitRate: { batch: number; policy: 'mirage' | 'fleet-mtile'; value: number }[];
    /** kernel-per-op flattens near 11–12 ms at batch ≥ 32 and beats both megakernels at batch 64. */
    kernelPerOpPlateauMs: { batches: number[]; range: [number, number] };
  };
}

export const fleetPaper: FleetPaperDataset = {
  source: FLEET_PAPER_SOURCE,
  model: 'qwen3-8b',
  backend: 'mi350',
  promptTokens: 64,
  decodeTokens: 1024,
  // /work/shared/reference/fleet-mi350-qwen3-8b.json, `calibration` block.
  calibration: {
    tpotMsBatch1: { 'kernel-per-op': 10.51, mirage: 7.83, 'fleet-mtile': 6.82, 'fleet-msplit': 6.73 },
    l2HitRateBatch1: { mirage: 0.164, 'fleet-mtile': 0.169, 'fleet-msplit': 0.17 },
    tasksPerLayerBatch1: { standardCuTasks: 1407, fleet: 543 },
  },
  // The same file's `claims`, plus the abstract's L2 hit rates (12% → 54% at batch 32,
  // 39% → 61% at batch 64; seedcode.md §5).
  claims: {
    speedupOverKernelPerOp: { batches: [1, 2, 4, 8], range: [1.3, 1.56] },
    speedupOverMirage: { batches: [1, 2, 4, 8, 16], range: [1.13, 1.16] },
    mtileOverMirage: [
      { batch: 32, value: 1.27 },
      { batch: 64, value: 1.3 },
    ],
    msplitOverMirage: [{ batch: 64, value: 1.03 }],
    hbmReadReduction: { batch: 64, value: 0.37 },
    l2HitRate: [
      { batch: 32, policy: 'mirage', value: 0.12 },
      { batch: 32, policy: 'fleet-mtile', value: 0.54 },
      { batch: 64, policy: 'mirage', value: 0.39 },
      { batch: 64, policy: 'fleet-mtile', value: 0.61 },
    ],
    kernelPerOpPlateauMs: { batches: [32, 64], range: [11, 12] },
  },
};
