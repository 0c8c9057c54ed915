import { createBatchConsumer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codec } from "../kafka/codecs.ts";
import { waitForGroupCaughtUp } from "../kafka/topics.ts";
import type { Logger } from "../logging.ts";

/**
 * An entity journal -> its Cassandra projection, for the configuration entities (merchants, links):
 * at least once, since each event's writes are idempotent and versioned (USING TIMESTAMP = the
 * entity's version), so a re-delivered batch rewrites the same cells. The events of one entity are
 * in one partition, in order, and written one after the other.
 */
export function createJournalProjector<E>(deps: {
  kafka: KafkaClient;
  log: Logger;
  /** Consumer group, also the name in logs. */
  group: string;
  topic: string;
  codec: Pick<Codec<E>, "decode">;
  apply: (event: E) => Promise<void>;
}) {
  const consumer = createBatchConsumer(deps.kafka, {
    groupId: deps.group,
    topics: [deps.topic],
    fromBeginning: true,
    onCrash: (err) => deps.log.error({ err }, `${deps.group} crashed`),
    onBatch: async (_topic, partition, records) => {
      for (const r of records) {
        if (!r.value) continue;
        let event: E;
        try {
          event = deps.codec.decode(r.value);
        } catch (err) {
          // One bad record must not stop the projection; it is logged with its position.
          deps.log.error(
            { err, topic: deps.topic, partition, offset: r.offset.toString() },
            "undecodable event skipped",
          );
          continue;
        }
        await deps.apply(event);
      }
    },
  });
  return {
    /** Resolves once caught up with the journal as it was at start (or after `timeoutMs`: false). */
    async start(timeoutMs: number): Promise<boolean> {
      await consumer.start();
      return waitForGroupCaughtUp(deps.kafka, { groupId: deps.group, topic: deps.topic, timeoutMs });
    },
    stop: () => consumer.stop(),
  };
}
