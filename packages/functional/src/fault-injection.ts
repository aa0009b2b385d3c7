/**
 * Deliberate scheduling bugs, to show that functional verification catches them: the stage
 * starting at an op loses its dependency on the stage before it. In a persistent graph its
 * tasks stop waiting on any event; in a kernel-per-op graph its kernel is launched as part of
 * the previous kernel, so its workgroups run alongside their producers.
 */
import { inputError, type KernelSpec, type TaskGraph } from '@fleet/core';

/**
 * Whether a kernel starts at `opId`: its first op, or the op its first stage's tasks name (a
 * ClusterFusion kernel starts at the QKV projection and its tasks name its attention op).
 */
function startsAt(g: TaskGraph, k: KernelSpec, opId: string): boolean {
  if (k.opIds[0] === opId) return true;
  const named = new Set(k.tasks.map((id) => g.tasks[id]!.opId));
  return k.opIds.find((id) => named.has(id)) === opId;
}

/** A copy of `tg` in which the stage starting at `opId` no longer waits for its predecessor. */
export function dropDependency(tg: TaskGraph, opId: string): TaskGraph {
  const g: TaskGraph = structuredClone(tg);
  const hit = g.tasks.filter((t) => t.opId === opId);
  const k = g.style === 'persistent' ? -1 : g.kernels.findIndex((x) => startsAt(g, x, opId));
  if (hit.length === 0 && k < 0) {
    const starts = g.style === 'persistent' ? [...new Set(g.tasks.map((t) => t.opId))] : g.kernels.map((x) => x.opIds[0]!);
    throw inputError(`drop dependency: no stage of policy ${g.policy} starts at op '${opId}' (stages start at ${starts.slice(0, 6).join(', ')}, …)`);
  }
  if (g.style === 'persistent') {
    for (const t of hit) t.waits = [];
    return g;
  }
  if (k < 0)
    throw inputError(
      `drop dependency: op '${opId}' starts no kernel of policy ${g.policy} (it is inside kernel ${g.kernels[g.tasks.find((t) => t.opId === opId)!.kernel!]?.name ?? '?'})`,
    );
  if (k === 0) throw inputError(`drop dependency: op '${opId}' starts the first kernel of policy ${g.policy}, which depends on nothing`);
  const prev = g.kernels[k - 1]!;
  const moved = g.kernels[k]!;
  prev.opIds.push(...moved.opIds);
  prev.tasks.push(...moved.tasks);
  prev.name = `${prev.name}+${moved.name}`;
  g.kernels.splice(k, 1);
  g.kernels.forEach((x, i) => {
    x.id = i;
  });
  for (const t of g.tasks) if (t.kernel !== undefined) t.kernel = g.kernels.findIndex((x) => x.tasks.includes(t.id));
  return g;
}
