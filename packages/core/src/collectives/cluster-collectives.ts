/**
 * Cluster-level collectives by recursive doubling (ClusterFusion's ClusterReduce and
 * ClusterGather): log2 N rounds, stride s = 1, 2, 4, …; in each round participant b sends to
 * (b + s) mod N and receives from (b − s) mod N.
 *
 * - reduce: every participant holds `bytes` and ends with the combination over all N. Each
 *   round moves the whole running vector (constant message) and combines it with the local one.
 * - gather: every participant holds a `bytes` slice and ends with all N slices. In round s it
 *   forwards the s slices it holds (the message doubles); received slices land in place.
 *
 * The schedule is vendor-neutral; a backend prices its rounds (DSMEM on Hopper, global memory
 * anywhere) with `scheduleLatencyNs`.
 */
import { inputError } from '../errors/fleet-error.js';

export type ClusterCollectiveKind = 'reduce' | 'gather';

export interface CollectiveRound {
  /** Peer offset of this round: send to (b + stride) mod N. */
  stride: number;
  /** Bytes each participant sends in this round. */
  sendBytes: number;
  /** Bytes each participant reads and writes locally to combine what it received (reduce: own + received + result). */
  combineBytes: number;
}

function checkParticipants(participants: number): number {
  if (!Number.isInteger(participants) || participants < 1 || (participants & (participants - 1)) !== 0) {
    throw inputError(`collective participants must be a power of two ≥ 1 (got ${participants})`);
  }
  return Math.log2(participants);
}

function checkBytes(bytes: number): void {
  if (!Number.isFinite(bytes) || bytes < 0) throw inputError(`collective bytes must be a non-negative number (got ${bytes})`);
}

/** The rounds of a recursive-doubling collective over `participants` (a power of two). */
export function collectiveRounds(kind: ClusterCollectiveKind, bytes: number, participants: number): CollectiveRound[] {
  checkBytes(bytes);
  const r = checkParticipants(participants);
  const rounds: CollectiveRound[] = [];
  for (let i = 0; i < r; i++) {
    const stride = 2 ** i;
    rounds.push(kind === 'reduce' ? { stride, sendBytes: bytes, combineBytes: 3 * bytes } : { stride, sendBytes: stride * bytes, combineBytes: 0 });
  }
  return rounds;
}

/** Bytes moved between participants in total: Σ over rounds of what each of the N sends. */
export function collectiveTrafficBytes(kind: ClusterCollectiveKind, bytes: number, participants: number): number {
  return collectiveRounds(kind, bytes, participants).reduce((s, r) => s + r.sendBytes * participants, 0);
}

/** ClusterReduce traffic in closed form: size · log2(N) · N. */
export function reduceTrafficBytes(size: number, participants: number): number {
  return size * checkParticipants(participants) * participants;
}

/** ClusterGather traffic in closed form: size · (2^(log2(N/2)+1) − 1) · N (N ≥ 2; 0 for N = 1). */
export function gatherTrafficBytes(size: number, participants: number): number {
  checkParticipants(participants);
  if (participants === 1) return 0;
  return size * (2 ** (Math.log2(participants / 2) + 1) - 1) * participants;
}

/** What one round costs on some medium: a fixed part (barrier, latencies) and two rates. */
export interface RoundPricing {
  /** Fixed cost of one round (synchronisation and message latency), ns. */
  fixedNs: number;
  /** Rate at which one participant sends, bytes/ns. */
  sendBytesPerNs: number;
  /** Rate at which one participant combines locally, bytes/ns. */
  combineBytesPerNs: number;
}

/** Latency of a schedule when every round costs fixed + send/rate + combine/rate (rounds are serial). */
export function scheduleLatencyNs(rounds: readonly CollectiveRound[], price: RoundPricing): number {
  let t = 0;
  for (const r of rounds) t += price.fixedNs + r.sendBytes / price.sendBytesPerNs + r.combineBytes / price.combineBytesPerNs;
  return t;
}
