import { TOPIC } from "../../topics/catalogue.ts";
import { createBatchConsumer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { waitForGroupCaughtUp } from "../kafka/topics.ts";
import type { Logger } from "../logging.ts";
import type { ChainIndexer } from "./adapter.ts";

export const BURNER_FEED_GROUP = "indexer.burners";

/**
 * The indexers' watchlists, fed from SessionCreated and BurnerRegistered events on session.events. Every chain watches
 * every burner: the payer may deposit on any supported chain. Idempotent (a watchlist add of a
 * burner already watched for the same session changes nothing), so at-least-once is enough.
 */
export function createBurnerFeed(deps: {
  kafka: KafkaClient;
  codecs: Pick<Codecs, "sessionEvent">;
  indexers: readonly ChainIndexer[];
  log: Logger;
}) {
  const { log } = deps;
  const consumer = createBatchConsumer(deps.kafka, {
    groupId: BURNER_FEED_GROUP,
    topics: [TOPIC.sessionEvents],
    fromBeginning: true,
    onCrash: (err) => log.error({ err }, "burner feed crashed"),
    onBatch: async (_topic, _partition, records) => {
      const created: Array<{ burner: string; sessionId: string }> = [];
      for (const r of records) {
        if (!r.value) continue;
        const event = deps.codecs.sessionEvent.decode(r.value);
        // A checkout session is created without a burner: it is watched once one is registered.
        const burner =
          event.type === "SessionCreated" || event.type === "BurnerRegistered" ? event.data.burner : null;
        if (burner !== null) created.push({ burner, sessionId: event.metadata.sessionId });
      }
      if (created.length === 0) return;
      // One watch call per batch: its backfill scans the recent blocks once for all of them.
      for (const indexer of deps.indexers) {
        for (const { outcome, burner, owner } of await indexer.watch(created)) {
          if (outcome === "conflict")
            log.warn({ burner, owner }, "burner already watched for another session");
        }
      }
    },
  });
  const caughtUp = (timeoutMs: number, signal?: AbortSignal) =>
    waitForGroupCaughtUp(deps.kafka, {
      groupId: BURNER_FEED_GROUP,
      topic: TOPIC.sessionEvents,
      timeoutMs,
      ...(signal ? { signal } : {}),
    });
  return {
    /** Starts the feed; resolves true once it has caught up with the journal as it was at start. */
    async start(timeoutMs: number): Promise<boolean> {
      await consumer.start();
      return caughtUp(timeoutMs);
    },
    /** Resolves true once caught up with the journal as it is now, false at `timeoutMs` or on `signal`. */
    caughtUp,
    stop: () => consumer.stop(),
  };
}
