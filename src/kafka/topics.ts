import { type KafkaClient, kafkajs } from "./client.ts";

export interface TopicDefinition {
  name: string;
  partitions: number;
  cleanupPolicy: "delete" | "compact";
  /** -1 keeps records forever. */
  retentionMs: number;
}

/**
 * Creates missing topics; an existing topic with a different partition count is an error, because
 * co-partitioned topics that disagree would send one session to two owners.
 */
export async function ensureTopics(kafka: KafkaClient, topics: TopicDefinition[]): Promise<string[]> {
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.name));
    if (missing.length > 0) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t.name,
          numPartitions: t.partitions,
          configEntries: [
            { name: "cleanup.policy", value: t.cleanupPolicy },
            { name: "retention.ms", value: String(t.retentionMs) },
          ],
        })),
      });
    }
    const present = topics.filter((t) => existing.has(t.name));
    if (present.length > 0) {
      const meta = await admin.fetchTopicMetadata({ topics: present.map((t) => t.name) });
      for (const t of present) {
        const found = meta.topics.find((m) => m.name === t.name);
        if (found && found.partitions.length !== t.partitions) {
          throw new Error(
            `topic ${t.name} has ${found.partitions.length} partitions, the catalogue says ${t.partitions}`,
          );
        }
      }
    }
    return missing.map((t) => t.name);
  } finally {
    await admin.disconnect();
  }
}

/** Records up to the given end offsets, counted from offset zero (transaction markers included). */
export const recordsBefore = (ends: Map<number, bigint>): number =>
  [...ends.values()].reduce((n, end) => n + Number(end), 0);

/** The offset after the last committed record of each partition (read_committed: the last stable offset). */
export async function stableEndOffsets(kafka: KafkaClient, topic: string): Promise<Map<number, bigint>> {
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  try {
    const offsets = await admin.fetchTopicOffsets(topic);
    return new Map(offsets.map((o) => [o.partition, BigInt(o.high)]));
  } finally {
    await admin.disconnect();
  }
}

/**
 * Waits until a consumer group has committed offsets at or past the topic's stable end as it was
 * when the wait began: "caught up with everything that existed when I started". false on timeout.
 */
export async function waitForGroupCaughtUp(
  kafka: KafkaClient,
  opts: { groupId: string; topic: string; timeoutMs: number; pollMs?: number; signal?: AbortSignal },
): Promise<boolean> {
  const ends = await stableEndOffsets(kafka, opts.topic);
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  const deadline = Date.now() + opts.timeoutMs;
  try {
    for (;;) {
      const [committed] = await admin.fetchOffsets({ groupId: opts.groupId, topics: [opts.topic] });
      const behind = [...ends].some(([partition, end]) => {
        if (end === 0n) return false;
        const c = committed?.partitions.find((p) => p.partition === partition);
        return !c || BigInt(c.offset) < end;
      });
      if (!behind) return true;
      if (Date.now() >= deadline || opts.signal?.aborted) return false;
      await new Promise((r) => setTimeout(r, opts.pollMs ?? 250));
    }
  } finally {
    await admin.disconnect();
  }
}
