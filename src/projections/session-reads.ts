import type { SessionReadPort } from "../gateway/ports.ts";
import type { SessionStateRecord } from "../kafka/records.ts";
import type { SessionReadModel } from "./read-model.ts";

/**
 * Reads with read-your-writes: a session this gateway has seen at version v (in an actor's reply)
 * is never answered older than v. It waits briefly for the projector, then answers with the owner's
 * reply itself, which is the same state the projector will write.
 */
export function createSessionReads(deps: {
  readModel: SessionReadModel;
  lastReplied: (id: string) => SessionStateRecord | undefined;
  waitMs?: number;
}): SessionReadPort {
  const waitMs = deps.waitMs ?? 2000;
  return {
    async get(sessionId) {
      const floor = deps.lastReplied(sessionId);
      const deadline = Date.now() + waitMs;
      for (;;) {
        const row = await deps.readModel.get(sessionId);
        if (row && (!floor || row.version >= floor.version))
          return { version: row.version, session: row.view };
        if (!floor) return null;
        if (Date.now() >= deadline) return floor;
        await new Promise((r) => setTimeout(r, 25));
      }
    },
  };
}
