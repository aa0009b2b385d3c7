/**
 * Launch and per-tile costs of the ROCm software stack on CDNA, measured or assumed on MI300X.
 * They describe HIP and vLLM's host loop more than the silicon, so a CDNA part without its own
 * measurement (MI350) uses the same values and says so.
 */

/** MEAS S16: gap per node of a one-chain hipGraph of empty kernels, ns (GraphBench, ROCm 7.2, device probably MI300X: UNC). */
export const GRAPH_GAP_NS = 1540;

/**
 * UNC: the device-side part of that gap (`endOfKernel.barrierNs`), ns: grid completion (last
 * wave retires, CP end-of-pipe event, next dispatch). On CDNA2 stream and graph back-to-back
 * gaps are equal (MI210 ≈ 2.1 µs, MEAS* S7), so most of the gap is device-side; assumed ≈ 2/3
 * of the 1.54 µs graph gap (S16).
 */
export const BARRIER_NS = 1000;

/**
 * CAL: the issue interval of vLLM's eager (one kernel per op, no graph) decode loop on CDNA,
 * ns per kernel: solved so that the predicted `kernel-per-op` TPOT of Qwen3-8B at batch 1 on
 * MI350X equals the FLEET paper's 10.51 ms, a value the paper's dataset marks as calibration
 * (`node packages/backend-mi350/calibration/derive.mjs` re-derives it). The HIP launch alone
 * takes ≈ 4.0 µs (S17); the rest is the framework's host-side work per op. Software, not
 * silicon, so every CDNA part uses the same value [UNC].
 */
export const VLLM_EAGER_LAUNCH_NS = 17149;

/**
 * UNC: per-tile prologue + epilogue that the memory system does not already charge (address
 * and LDS setup, MFMA pipeline fill/drain, accumulator → bf16 conversion, the output store's
 * issue): assumed ≈ 630 cycles ≈ 300 ns per tile on MI300X, every op kind; MI350 keeps the ns.
 */
export const TILE_OVERHEAD_NS = 300;
