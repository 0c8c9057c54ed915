import { TOPIC } from "../../topics/catalogue.ts";
import { isApplied } from "../domain/decider.ts";
import type { SessionEvent } from "../domain/events.ts";
import { sessionDecider } from "../domain/session-decider.ts";
import type { Session } from "../domain/types.ts";
import { createBatchConsumer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { Logger } from "../logging.ts";
import {
  projectedEvents,
  relayerFeeWei,
  relayerGasUsed,
  relayerSpend,
  sessionRelayerSpend,
} from "../ops/metrics.ts";
import { createLru } from "../support/lru.ts";
import type { SessionReadModel } from "./read-model.ts";

export const PROJECTOR_GROUP = "projector";

/**
 * Folds events into states, one partition batch at a time. States come from a bounded cache or the
 * read model; an event at or below a session's stored version was applied before and is skipped,
 * which makes re-delivery harmless.
 */
export function createStateFolder(readModel: SessionReadModel, cacheSize = 100_000) {
  const cache = createLru<string, Session>(cacheSize);
  return {
    /**
     * The sessions whose state this batch changed, in their final state. The cache takes them only
     * on `commit()`, after they are written: a failed write must leave the batch re-appliable.
     */
    async fold(events: SessionEvent[]): Promise<{ states: Session[]; commit(): void }> {
      const changed = new Map<string, Session>();
      const spent: Array<{
        chainId: number;
        gasUsed: bigint;
        feeWei: bigint;
        cost: bigint | null;
        sessionTotal: bigint;
      }> = [];
      for (const event of events) {
        const id = event.metadata.sessionId;
        let before: Session | null = changed.get(id) ?? cache.get(id) ?? null;
        // A gap means another projector instance moved the session on: the read model knows better.
        const stale = before !== null && event.metadata.version > before.version + 1;
        if ((!before || stale) && event.type !== "SessionCreated") {
          before = (await readModel.get(id))?.state ?? null;
        }
        // Written already: a re-delivered batch changes nothing.
        if (before && isApplied(sessionDecider, before, event)) continue;
        const after = sessionDecider.evolve(before, event);
        if (after) changed.set(id, after);
        if (after && event.type === "RelayerGasSpent") {
          // The session's spend as recorded (an event from before the ledger carries no cost).
          const sessionTotal = after.gasSpent.reduce((sum, g) => sum + (g.cost ?? 0n), 0n);
          spent.push({ ...event.data, sessionTotal });
        }
      }
      const states = [...changed.values()];
      return {
        states,
        commit: () => {
          for (const s of states) cache.set(s.id, s);
          // Counted once the batch is written: a batch folded again after a failed write counts once.
          for (const g of spent) {
            const labels = { chain_id: String(g.chainId) };
            relayerGasUsed.inc(labels, Number(g.gasUsed));
            relayerFeeWei.inc(labels, Number(g.feeWei));
            if (g.cost !== null) relayerSpend.inc(labels, Number(g.cost));
            sessionRelayerSpend.observe(Number(g.sessionTotal));
          }
        },
      };
    },
  };
}

export interface Projector {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * session.events -> the Cassandra read model, off the write path: the actors write each state on
 * session.state themselves, in the transaction of its events (docs/DESIGN.md, "The write path's
 * critical path"). At least once: writes are idempotent and monotonic per session version
 * (USING TIMESTAMP version), so a replayed batch changes nothing.
 */
export function createProjector(deps: {
  kafka: KafkaClient;
  codecs: Pick<Codecs, "sessionEvent">;
  readModel: SessionReadModel;
  log: Logger;
  /** The consumer group: each read-model table has its own (read-model-control.ts). */
  groupId?: string;
  /**
   * How long a fetch waits on the broker for more events (createBatchConsumer; 0 or unset: answered
   * at the first). Nothing waits on the projector, so a longer wait only makes its batches, and so
   * its Cassandra batches, fuller.
   */
  fetchWaitMs?: number;
}): Projector {
  const folder = createStateFolder(deps.readModel);
  const consumer = createBatchConsumer(deps.kafka, {
    groupId: deps.groupId ?? PROJECTOR_GROUP,
    topics: [TOPIC.sessionEvents],
    fromBeginning: true,
    // Every partition at once: a partition's sessions are its own (keyed by session id), so batches
    // of different partitions never fold the same session, and the shared cache only ever holds
    // states that were written; their Cassandra writes overlap.
    concurrency: 8,
    ...(deps.fetchWaitMs ? { fetchWaitMs: deps.fetchWaitMs } : {}),
    onCrash: (err) => deps.log.error({ err }, "projector consumer crashed"),
    onBatch: async (_topic, partition, records) => {
      const events: SessionEvent[] = [];
      for (const r of records) {
        if (!r.value) continue;
        try {
          events.push(deps.codecs.sessionEvent.decode(r.value));
        } catch (err) {
          deps.log.error(
            { err, partition, offset: r.offset.toString() },
            "undecodable session event skipped",
          );
        }
      }
      const { states: changed, commit } = await folder.fold(events);
      await deps.readModel.write(changed);
      commit();
      projectedEvents.inc(events.length);
    },
  });
  return {
    start: () => consumer.start(),
    stop: () => consumer.stop(),
  };
}
