import { TOPIC } from "../../topics/catalogue.ts";
import { createBatchConsumer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import { subscriptionEventCodec } from "../kafka/codecs.ts";
import { waitForGroupCaughtUp } from "../kafka/topics.ts";
import type { Logger } from "../logging.ts";
import type { SubscriptionStore } from "../store/subscriptions.ts";

export const SUBSCRIPTION_PROJECTOR_GROUP = "subscription-projector";

/**
 * subscription.events -> the Cassandra subscription projection (src/store/subscriptions.ts). At least
 * once: the store skips an event it already holds, so a re-delivered batch changes nothing. The
 * events of one subscription are in one partition, in order, and written one after the other.
 */
export function createSubscriptionProjector(deps: {
  kafka: KafkaClient;
  store: SubscriptionStore;
  log: Logger;
}) {
  const consumer = createBatchConsumer(deps.kafka, {
    groupId: SUBSCRIPTION_PROJECTOR_GROUP,
    topics: [TOPIC.subscriptionEvents],
    fromBeginning: true,
    onCrash: (err) => deps.log.error({ err }, "subscription projector crashed"),
    onBatch: async (_topic, partition, records) => {
      for (const r of records) {
        if (!r.value) continue;
        let event: ReturnType<typeof subscriptionEventCodec.decode>;
        try {
          event = subscriptionEventCodec.decode(r.value);
        } catch (err) {
          // One bad record must not stop the projection; it is logged with its position.
          deps.log.error(
            { err, partition, offset: r.offset.toString() },
            "undecodable subscription event skipped",
          );
          continue;
        }
        await deps.store.apply(event);
      }
    },
  });
  return {
    /** Resolves once caught up with the journal as it was at start (or after `timeoutMs`: false). */
    async start(timeoutMs: number): Promise<boolean> {
      await consumer.start();
      return waitForGroupCaughtUp(deps.kafka, {
        groupId: SUBSCRIPTION_PROJECTOR_GROUP,
        topic: TOPIC.subscriptionEvents,
        timeoutMs,
      });
    },
    stop: () => consumer.stop(),
  };
}
