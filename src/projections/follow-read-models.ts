import type { Logger } from "../logging.ts";
import type { ReadModelControlStore } from "../store/read-model-control.ts";
import { INITIAL_READ_MODELS, type ReadModels } from "./read-model-control.ts";

/**
 * Follows the read-model control record (read-model-control.ts): reads it now, then every `pollMs`,
 * and calls `onChange` with each new version, one call at a time. Polled rather than pushed: the
 * record changes a few times a year, every gateway and projector reads one row a few seconds apart,
 * and a process that missed a change (a Cassandra hiccup) has it at the next poll.
 */
export interface ReadModelFollower {
  current(): ReadModels;
  /** Reads the record now (an operator's switch answered by this process sees it at once). */
  refresh(): Promise<ReadModels>;
  stop(): Promise<void>;
}

export async function followReadModels(deps: {
  store: Pick<ReadModelControlStore, "read">;
  pollMs: number;
  log: Logger;
  onChange: (next: ReadModels, before: ReadModels) => Promise<void> | void;
}): Promise<ReadModelFollower> {
  // null until the first read: the first record, even the initial one, is a change to act on.
  let current: ReadModels | null = null;
  let stopped = false;
  // Every refresh goes through this chain: two reads never apply their records out of order.
  let chain: Promise<unknown> = Promise.resolve();
  const refresh = (): Promise<ReadModels> => {
    const run = chain.then(async () => {
      const next = await deps.store.read();
      if (current === null || next.version !== current.version) {
        await deps.onChange(next, current ?? INITIAL_READ_MODELS);
        current = next;
      }
      return current;
    });
    chain = run.catch(() => undefined);
    return run;
  };
  await refresh();
  const timer = setInterval(() => {
    if (stopped) return;
    refresh().catch((err) => deps.log.warn({ err }, "read-model control not read; trying again"));
  }, deps.pollMs);
  timer.unref();
  return {
    current: () => current ?? INITIAL_READ_MODELS,
    refresh,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await chain;
    },
  };
}
