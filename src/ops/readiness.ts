/**
 * What /ready and /live mean (src/ops/metrics-server.ts; docs/RELIABILITY.md, "Probes"): a process
 * is ready once every role it runs holds its work (partitions restored, the indexer caught up) and
 * until its stop begins; it is live as long as its event loop turns without being held.
 */

/** Why a role cannot do its work yet, or null when it can. */
export type NotReady = () => string | null;

/** The first reason any of the roles gives, or null when every one is ready. */
export function firstNotReady(checks: readonly NotReady[]): string | null {
  for (const check of checks) {
    const why = check();
    if (why !== null) return why;
  }
  return null;
}

/**
 * An entity's actors are ready once the start's restore is done and no partition a later rebalance
 * gave them is still restoring: until then commands for those sessions wait on the restore.
 */
export function actorsNotReady(
  entity: string,
  startRestored: boolean,
  restoring: readonly number[],
): string | null {
  if (!startRestored) return `${entity} actors: partitions still restoring`;
  return restoring.length === 0
    ? null
    : `${entity} actors: partition${restoring.length === 1 ? "" : "s"} ${restoring.join(",")} still restoring`;
}

/**
 * The indexer role is ready once its burner feed caught up with the journal (every session's burner
 * is watched) and every chain's indexer has made progress within `staleSeconds` (it follows its chain).
 */
export function indexerNotReady(
  feedCaughtUp: boolean,
  chains: ReadonlyArray<{ chainId: number; lastBlockAt: number | null }>,
  now: number,
  staleSeconds: number,
): string | null {
  if (!feedCaughtUp) return "indexer: burner feed still catching up with session.events";
  const behind = chains.filter((c) => c.lastBlockAt === null || now - c.lastBlockAt > staleSeconds * 1000);
  return behind.length === 0
    ? null
    : `indexer: no progress within ${staleSeconds} s on chain ${behind.map((c) => c.chainId).join(", ")}`;
}

/**
 * The longest a turn of the event loop may be held before the process counts as not live: a
 * restore or a replay works in short turns, so a loop held this long is stuck (a busy loop, a
 * synchronous call that never returns) and a restart is the cure. A probe answering at all does not
 * show that: it can get through between two turns held for seconds.
 */
export const MAX_EVENT_LOOP_HOLD_MS = 10_000;

/** null while the longest turn since the last probe (ms) is under the bound, else why not live. */
export function notLive(longestTurnMs: number, maxMs = MAX_EVENT_LOOP_HOLD_MS): string | null {
  return longestTurnMs > maxMs
    ? `event loop held for ${Math.round(longestTurnMs)} ms (more than ${maxMs} ms)`
    : null;
}
