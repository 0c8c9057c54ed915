import { TOPIC } from "../../topics/catalogue.ts";
import { createBatchConsumer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import { merchantEventCodec } from "../kafka/codecs.ts";
import { waitForGroupCaughtUp } from "../kafka/topics.ts";
import type { Logger } from "../logging.ts";
import type { MerchantStore } from "../store/merchants.ts";

export const MERCHANT_PROJECTOR_GROUP = "merchant-projector";

/**
 * merchant.events -> the Cassandra merchant projection (src/store/merchants.ts). At least once: each
 * event's writes are idempotent and versioned, so a re-delivered batch rewrites the same cells. The
 * events of one merchant are in one partition, in order, and written one after the other.
 */
export function createMerchantProjector(deps: { kafka: KafkaClient; store: MerchantStore; log: Logger }) {
  const consumer = createBatchConsumer(deps.kafka, {
    groupId: MERCHANT_PROJECTOR_GROUP,
    topics: [TOPIC.merchantEvents],
    fromBeginning: true,
    onCrash: (err) => deps.log.error({ err }, "merchant projector crashed"),
    onBatch: async (_topic, partition, records) => {
      for (const r of records) {
        if (!r.value) continue;
        let event: ReturnType<typeof merchantEventCodec.decode>;
        try {
          event = merchantEventCodec.decode(r.value);
        } catch (err) {
          // One bad record must not stop the projection; it is logged with its position.
          deps.log.error(
            { err, partition, offset: r.offset.toString() },
            "undecodable merchant event skipped",
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
        groupId: MERCHANT_PROJECTOR_GROUP,
        topic: TOPIC.merchantEvents,
        timeoutMs,
      });
    },
    stop: () => consumer.stop(),
  };
}
