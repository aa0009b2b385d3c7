/**
 * The FLEET paper's published Qwen3-8B decode numbers on one MI350X, as Fleet validates
 * against them: Table 4 (L2 hit rate, HBM reads and writes per policy and batch), Figure 6
 * and §6.2 (TPOT, speedups, HBM reads in GB), Figure 4 (tasks per layer) and §4.1 (fused SiLU). Only values that set a
 * parameter are `calibration` (two do: see `MEGAKERNEL_OUTSTANDING_BYTES_PER_WAVE` and
 * `VLLM_EAGER_LAUNCH_NS` in @fleet/family-cdna, both fitted on a batch-1 TPOT), and the one
 * row that returns a fitted value by construction (M-split's batch-1 TPOT: fleet-mtile's task
 * graph); everything else must come out of the model.
 */
export const FLEET_PAPER_SOURCE =
  'FLEET (AMD Research, 2026, arXiv 2604.15379): Qwen3-8B bf16 decode on one AMD Instinct MI350X; 64 prompt + 1024 decode tokens; decode-only TPOT from on-GPU timestamps; L2/HBM from rocprofiler-sdk device counters';

export type FleetPolicy = 'kernel-per-op' | 'mirage' | 'fleet-mtile' | 'fleet-msplit';

/** The policies of Table 4's columns (NoSplitK has no Fleet policy: its rows are not checked). */
export type Table4Policy = 'mirage' | 'fleet-mtile' | 'fleet-msplit';

/** One batch row of Table 4: L2 hit rate, and HBM reads and writes normalised to Mirage's. */
export interface Table4Row {
  batch: number;
  l2HitRate: Record<Table4Policy | 'nosplitk', number>;
  hbmReadVsMirage: Record<Exclude<Table4Policy, 'mirage'> | 'nosplitk', number>;
  hbmWriteVsMirage: Record<Exclude<Table4Policy, 'mirage'> | 'nosplitk', number>;
}

export interface FleetPaperDataset {
  source: string;
  model: 'qwen3-8b';
  backend: 'mi350';
  promptTokens: number;
  decodeTokens: number;
  /** Values that set a parameter: batch-1 TPOT of fleet-mtile and kernel-per-op (vLLM eager). */
  calibration: { tpotMsBatch1: Record<'kernel-per-op' | 'fleet-mtile', number> };
  /** Figure 4: tasks per Qwen3-8B layer at batch 1; the decompositions are taken from the paper. */
  tasksPerLayerBatch1: { mirage: number; 'fleet-mtile': number };
  claims: {
    /** Figure 6 / §6.2 TPOT, ms, of the policies not calibrated on. */
    tpotMs: { batch: number; policy: FleetPolicy; value: number }[];
    /** §6.2: vLLM flattens at about 11–12 ms at batch ≥ 32. */
    kernelPerOpPlateauMs: { batches: number[]; range: [number, number] };
    /**
     * Abstract (batch 1–8), conclusion (batch 1–16) and §6.2 (1.54×, 1.56× at batch 1): both FLEET
     * traversals 1.3–1.56× faster than vLLM (batch 1 is two calibrated values: not checked).
     */
    speedupOverKernelPerOp: { batches: number[]; range: [number, number] };
    /** §6.2: at batch 1–16 both FLEET variants 1.13–1.16× faster than Mirage. */
    speedupOverMirage: { batches: number[]; range: [number, number] };
    /** §6.2: ratios at larger batch. */
    overMirage: { batch: number; policy: 'fleet-mtile' | 'fleet-msplit'; value: number }[];
    /** §6.2: Mirage 1.34× faster than vLLM at batch 1 (7.83 vs 10.51 ms); FLEET (M-tile) 1.06× at batch 32, slower at batch 64. */
    overKernelPerOp: { batch: number; policy: 'mirage' | 'fleet-mtile'; value: number }[];
    /**
     * §6.2's HBM reads in GB over the 1024 decode tokens (Table 4's counters before
     * normalising): per policy at batch 32 and 64, and ~2400–2800 GB for every policy at batch
     * 1–16. Their units are the paper's; Fleet checks them as ratios across batch sizes.
     */
    hbmReadGB: { batch: number; policy: Table4Policy; value: number }[];
    hbmReadGBSmallBatches: { batches: number[]; range: [number, number] };
    /** Table 4. */
    table4: Table4Row[];
    /** §4.1: FLEET's L2 hit rate at batch 1 without and with SiLU fused into the gate+up chiplet-task. */
    fusedSilu: { batch: number; unfused: number; fused: number };
  };
}

const T4 = (batch: number, [mirage, nosplitk, mtile, msplit]: number[], [rdN, rdT, rdS]: number[], [wrN, wrT, wrS]: number[]): Table4Row => ({
  batch,
  l2HitRate: { mirage: mirage! / 100, nosplitk: nosplitk! / 100, 'fleet-mtile': mtile! / 100, 'fleet-msplit': msplit! / 100 },
  hbmReadVsMirage: { nosplitk: rdN!, 'fleet-mtile': rdT!, 'fleet-msplit': rdS! },
  hbmWriteVsMirage: { nosplitk: wrN!, 'fleet-mtile': wrT!, 'fleet-msplit': wrS! },
});

export const fleetPaper: FleetPaperDataset = {
  source: FLEET_PAPER_SOURCE,
  model: 'qwen3-8b',
  backend: 'mi350',
  promptTokens: 64,
  decodeTokens: 1024,
  // /work/shared/reference/fleet-mi350-qwen3-8b.json, `calibration` block: the two TPOTs a parameter is solved on.
  calibration: { tpotMsBatch1: { 'kernel-per-op': 10.51, 'fleet-mtile': 6.82 } },
  tasksPerLayerBatch1: { mirage: 1407, 'fleet-mtile': 543 },
  claims: {
    tpotMs: [
      { batch: 1, policy: 'mirage', value: 7.83 },
      { batch: 1, policy: 'fleet-msplit', value: 6.73 },
      { batch: 32, policy: 'mirage', value: 15.62 },
      { batch: 32, policy: 'fleet-mtile', value: 12.35 },
      { batch: 32, policy: 'fleet-msplit', value: 13.37 },
      { batch: 64, policy: 'mirage', value: 24.1 },
      { batch: 64, policy: 'fleet-mtile', value: 18.61 },
      { batch: 64, policy: 'fleet-msplit', value: 23.4 },
    ],
    kernelPerOpPlateauMs: { batches: [32, 64], range: [11, 12] },
    speedupOverKernelPerOp: { batches: [2, 4, 8, 16], range: [1.3, 1.56] },
    speedupOverMirage: { batches: [2, 4, 8, 16], range: [1.13, 1.16] },
    overMirage: [
      { batch: 32, policy: 'fleet-mtile', value: 1.27 },
      { batch: 32, policy: 'fleet-msplit', value: 1.17 },
      { batch: 64, policy: 'fleet-mtile', value: 1.3 },
      { batch: 64, policy: 'fleet-msplit', value: 1.03 },
    ],
    overKernelPerOp: [
      { batch: 1, policy: 'mirage', value: 1.34 },
      { batch: 32, policy: 'fleet-mtile', value: 1.06 },
    ],
    hbmReadGB: [
      { batch: 32, policy: 'mirage', value: 3906 },
      { batch: 32, policy: 'fleet-mtile', value: 3190 },
      { batch: 32, policy: 'fleet-msplit', value: 4295 },
      { batch: 64, policy: 'mirage', value: 6203 },
      { batch: 64, policy: 'fleet-mtile', value: 3925 },
      { batch: 64, policy: 'fleet-msplit', value: 7426 },
    ],
    hbmReadGBSmallBatches: { batches: [1, 2, 4, 8, 16], range: [2400, 2800] },
    // Table 4, columns: L2 hit % (Mirage, NoSplitK, M-tile, M-split), HBM Rd × Mirage and HBM Wr × Mirage (NoSplitK, M-tile, M-split).
    table4: [
      T4(1, [16.4, 23.4, 16.9, 17.0], [0.98, 0.98, 0.99], [0.29, 0.32, 0.87]),
      T4(2, [17.3, 24.2, 17.5, 17.9], [1.01, 1.01, 1.02], [0.71, 0.4, 0.76]),
      T4(4, [18.2, 25.1, 18.9, 19.2], [0.98, 0.97, 0.98], [0.37, 0.29, 0.76]),
      T4(8, [20.0, 26.3, 20.8, 20.8], [1.01, 1.0, 1.01], [0.6, 0.33, 0.38]),
      T4(16, [22.2, 28.7, 23.7, 23.5], [0.99, 0.97, 0.98], [0.47, 0.45, 0.41]),
      T4(32, [38.9, 42.6, 51.0, 39.5], [1.04, 0.82, 1.1], [0.45, 0.38, 0.4]),
      T4(64, [39.0, 41.9, 61.4, 47.4], [1.08, 0.63, 1.2], [0.48, 0.44, 0.44]),
    ],
    fusedSilu: { batch: 1, unfused: 0.094, fused: 0.174 },
  },
};
