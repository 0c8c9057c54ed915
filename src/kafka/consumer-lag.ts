import { type KafkaClient, kafkajs } from "./client.ts";

/** One partition of a group's topic: where the group is, where the topic ends, and the gap. */
export interface PartitionLag {
  partition: number;
  /** The group's committed offset (the next record it will read), null when it committed none. */
  committed: bigint | null;
  /** The partition's high watermark. */
  end: bigint;
  lag: bigint;
}

export interface TopicLag {
  topic: string;
  partitions: PartitionLag[];
  lag: bigint;
}

/**
 * A partition's lag as Kafka's own tools count it: the high watermark less the committed offset.
 * A group that committed nothing owes the whole partition (it starts from the beginning, as every
 * consumer of this service does). Transaction markers count as records here, so a partition whose
 * last write was a transaction can show 1 after its group has read everything.
 */
export function partitionLag(partition: number, committed: bigint | null, end: bigint): PartitionLag {
  const lag = committed === null ? end : end > committed ? end - committed : 0n;
  return { partition, committed, end, lag };
}

export function topicLag(topic: string, ends: Map<number, bigint>, committed: Map<number, bigint>): TopicLag {
  const partitions = [...ends]
    .sort(([a], [b]) => a - b)
    .map(([p, end]) => partitionLag(p, committed.get(p) ?? null, end));
  return { topic, partitions, lag: partitions.reduce((n, p) => n + p.lag, 0n) };
}

/** Each topic's lag for a consumer group, read with kafkajs's admin (committed offsets, high watermarks). */
export async function groupLag(
  kafka: KafkaClient,
  groupId: string,
  topics: readonly string[],
): Promise<TopicLag[]> {
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  try {
    const committed = await admin.fetchOffsets({ groupId, topics: [...topics] });
    const out: TopicLag[] = [];
    for (const topic of topics) {
      const ends = new Map(
        (await admin.fetchTopicOffsets(topic)).map((o) => [o.partition, BigInt(o.high)] as const),
      );
      const mine = committed.find((c) => c.topic === topic)?.partitions ?? [];
      // kafkajs answers "-1" for a partition the group committed nothing on.
      const at = new Map(
        mine.filter((p) => BigInt(p.offset) >= 0n).map((p) => [p.partition, BigInt(p.offset)] as const),
      );
      out.push(topicLag(topic, ends, at));
    }
    return out;
  } finally {
    await admin.disconnect();
  }
}
