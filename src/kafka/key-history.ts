import { Partitioners } from "kafkajs";
import { type KafkaClient, kafkajs } from "./client.ts";
import { type ReadRecord, readTopic } from "./topic-reader.ts";
import { stableEndOffsets } from "./topics.ts";

/**
 * The partition the producers put `key` in: kafkajs's default partitioner (murmur2, as Java's
 * client), which every keyed send of the service goes through. Asked of kafkajs itself rather than
 * recomputed, so the answer is the producers' by construction.
 */
export function partitionOfKey(key: string, partitions: number): number {
  const partitioner = Partitioners.DefaultPartitioner();
  // Only the ids count for a keyed record; the rest is there because the type asks for it.
  const partitionMetadata = Array.from({ length: partitions }, (_, i) => ({
    partitionId: i,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return partitioner({ topic: "", partitionMetadata, message: { key, value: null } });
}

/**
 * Every committed record of `key` written at or after `since` (unix ms, the broker's record
 * timestamps), in offset order, with its partition, offset and timestamp. Only the key's partition
 * is read, and only from the first offset at that time: the cost is that partition's records since
 * then, not the topic's.
 */
export async function readKeySince(
  kafka: KafkaClient,
  opts: { topic: string; key: string; since: number; signal?: AbortSignal },
): Promise<ReadRecord[]> {
  const ends = await stableEndOffsets(kafka, opts.topic);
  const partition = partitionOfKey(opts.key, ends.size);
  const end = ends.get(partition) ?? 0n;
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  let start: bigint;
  try {
    const found = (await admin.fetchTopicOffsetsByTimestamp(opts.topic, opts.since)).find(
      (o) => o.partition === partition,
    );
    // -1: no record at or after that time.
    start = found === undefined || BigInt(found.offset) < 0n ? end : BigInt(found.offset);
  } finally {
    await admin.disconnect();
  }
  const wanted = Buffer.from(opts.key);
  const kept: ReadRecord[] = [];
  await readTopic(kafka, {
    topic: opts.topic,
    from: new Map([[partition, start]]),
    until: new Map([[partition, end]]),
    onBatch: (records) => {
      for (const r of records) if (r.key?.equals(wanted)) kept.push(r);
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  return kept;
}
