import { sleep } from "./retry.ts";

/**
 * One budget of calls per second shared by everything in a process that asks the same rate-limited
 * API (the attestation API: Circle's allows 35 requests a second and shuts a client out for minutes
 * past it). Turns are handed out in the order asked, at least 1/perSecond apart; a caller that finds
 * the budget spent waits for its turn instead of failing.
 */
export interface Pacer {
  /** Resolves when the caller may send; rejects with the signal's reason if it is aborted first. */
  turn(signal?: AbortSignal): Promise<void>;
}

export function createPacer(perSecond: number, now: () => number = Date.now): Pacer {
  if (!(perSecond > 0)) throw new RangeError(`a pacer needs a positive rate, not ${perSecond}`);
  const gapMs = 1000 / perSecond;
  let nextFree = Number.NEGATIVE_INFINITY;
  return {
    async turn(signal) {
      const t = now();
      const at = Math.max(t, nextFree);
      nextFree = at + gapMs;
      if (at > t) await sleep(at - t, signal);
    },
  };
}
