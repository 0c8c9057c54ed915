import type { Consumer } from "kafkajs";
import { groupTiming, heartbeatingWhile, type KafkaClient, kafkajs, superviseConsumer } from "./client.ts";
import { coPartitionedAssigner } from "./co-partition-assigner.ts";
import { type ReadRecord, readRecordOf } from "./topic-reader.ts";

export interface InputBatch {
  topic: string;
  partition: number;
  records: ReadRecord[];
  /** Offset after the last record of the batch: what to commit once it is processed. */
  nextOffset: bigint;
  /**
   * true once the partition was sought since this batch was fetched (after a failed transaction):
   * its records are read again from the sought offset, so this copy must not be applied.
   */
  isStale: () => boolean;
}

export interface PartitionedConsumerOptions {
  groupId: string;
  topics: string[];
  /** Called after each group join with the partition numbers this member now owns (all topics). */
  onAssigned: (partitions: number[]) => void;
  /**
   * Processes one batch; it commits the offsets itself (inside its transaction). It answers false
   * when the batch was not applied (it then seeks the partition back itself).
   */
  onBatch: (batch: InputBatch) => Promise<boolean>;
  /** How many partitions are processed at the same time. */
  concurrency: number;
  /** The consumer stopped for good: kafkajs does not restart it after this error. */
  onCrash?: (error: Error) => void;
}

export interface PartitionedConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Makes the next fetch of this partition start at `offset` (after a failed transaction). */
  seek(topic: string, partition: number, offset: bigint): void;
  /** The group's committed offset of a partition (the next record to process), or null. */
  committedOffset(topic: string, partition: number): Promise<bigint | null>;
}

/**
 * A read_committed consumer-group member over co-partitioned topics: partition N of every topic is
 * owned by the same member. Offsets are never auto-committed: the batch handler commits them in
 * the same Kafka transaction as its output.
 */
export function createPartitionedConsumer(
  kafka: KafkaClient,
  opts: PartitionedConsumerOptions,
): PartitionedConsumer {
  const consumer: Consumer = kafkajs(kafka).consumer({
    groupId: opts.groupId,
    partitionAssigners: [coPartitionedAssigner],
    readUncommitted: false,
    ...groupTiming(kafka),
    maxWaitTimeInMs: 50,
    maxBytesPerPartition: 1024 * 1024,
  });
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    const owned = new Set<number>();
    for (const partitions of Object.values(payload.memberAssignment))
      for (const p of partitions) owned.add(p);
    opts.onAssigned([...owned].sort((a, b) => a - b));
  });
  let stopped = false;
  const run = async () => {
    await consumer.connect();
    await consumer.subscribe({ topics: opts.topics, fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: opts.concurrency,
      eachBatch: async ({ batch, isRunning, isStale, heartbeat, resolveOffset }) => {
        if (!isRunning() || isStale() || batch.messages.length === 0) return;
        const records = batch.messages.map((m) => readRecordOf(batch.partition, m));
        // A batch waits for its partition's restore: the member must stay in the group meanwhile.
        const applied = await heartbeatingWhile(kafka, heartbeat, () =>
          opts.onBatch({
            topic: batch.topic,
            partition: batch.partition,
            records,
            nextOffset: BigInt(batch.lastOffset()) + 1n,
            isStale,
          }),
        );
        // Resolving moves kafkajs's fetch position on; it commits nothing (autoCommit is off).
        if (applied) resolveOffset(batch.lastOffset());
        await heartbeat();
      },
    });
  };
  superviseConsumer(consumer, { onCrash: opts.onCrash, start: run, stopped: () => stopped });

  return {
    start: run,
    async stop() {
      stopped = true;
      await consumer.disconnect();
    },
    seek(topic, partition, offset) {
      consumer.seek({ topic, partition, offset: offset.toString() });
    },
    async committedOffset(topic, partition) {
      const admin = kafkajs(kafka).admin();
      await admin.connect();
      try {
        const [found] = await admin.fetchOffsets({ groupId: opts.groupId, topics: [topic] });
        const p = found?.partitions.find((x) => x.partition === partition);
        return p && Number(p.offset) >= 0 ? BigInt(p.offset) : null;
      } finally {
        await admin.disconnect();
      }
    },
  };
}
