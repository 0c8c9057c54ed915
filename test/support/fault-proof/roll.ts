import type { Cluster, FaultRole } from "./cluster.ts";

export type RollSignal = "SIGTERM" | "SIGKILL";

/** One process replaced in a roll. */
export interface RollStep {
  signal: RollSignal;
  name: string;
  role: FaultRole;
  /** From the signal until the old process exited, ms, and its exit (0 for a clean stop). */
  stopMs: number;
  exit: number | string | null;
  /** From its exit until the replacement's /ready answered 200, ms. */
  readyMs: number;
}

/**
 * A rolling restart of the whole cluster, the way `kubectl rollout restart` goes through it: every
 * process in turn, one at a time, sent `signal`, and the next one only once its replacement is ready
 * (/ready 200). One pass per signal, in the order given (SIGTERM, then kill -9).
 */
export async function rollCluster(
  c: Cluster,
  signals: readonly RollSignal[],
  log: (line: string) => void,
): Promise<RollStep[]> {
  const steps: RollStep[] = [];
  for (const signal of signals)
    for (const p of [...c.procs]) {
      log(`roll: ${p.name} ${signal}`);
      const replaced = await c.replace(p, signal);
      steps.push({ signal, name: p.name, role: p.role, ...replaced });
      log(
        `roll: ${p.name} exited (${replaced.exit}) ${replaced.stopMs} ms after ${signal}, replacement ready ${replaced.readyMs} ms later`,
      );
    }
  return steps;
}
