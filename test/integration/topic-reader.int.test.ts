// readTopic against the real broker where a partition's next batch is larger than a fetch may
// hold: kafkajs lists a request's partitions in one fixed order, and the broker sends such a batch
// only to the first partition with data. A reader that kept fetching partitions past their end,
// while live writes fed them, left it waiting (an actors restore stalled for minutes in CI under
// the exactly-once test's load; this lighter test checks the read completes and stops at the end
// it began with). Scratch topic test.reader.*, a new one per run.

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { ensureTopics } from "../../src/kafka/topics.ts";

let kafka: KafkaClient;

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  const infra = await resolveInfra(parseConfig({ ...process.env }), {});
  kafka = createKafka({ brokers: infra.brokers, clientId: "test.topic-reader" });
});

describe("readTopic", () => {
  it("reads a batch larger than its fetch size while an earlier partition keeps growing", async () => {
    const topic = `test.reader.${randomUUID()}`;
    await ensureTopics(kafka, [
      { name: topic, partitions: 2, cleanupPolicy: "delete", retentionMs: 3_600_000 },
    ]);
    const producer = kafkajs(kafka).producer();
    await producer.connect();
    try {
      // Partition 0: a little data; partition 1: one ~600 KiB batch (one send, no compression).
      await producer.send({ topic, messages: [{ partition: 0, value: Buffer.from("first") }] });
      const big = Array.from({ length: 600 }, (_, i) => ({
        partition: 1,
        value: Buffer.alloc(1024, i % 256),
      }));
      await producer.send({ topic, messages: big });

      // Live writes to partition 0 while the reader runs: it stays the first partition with data.
      let writing = true;
      let written = 1;
      const writer = (async () => {
        while (writing) {
          await producer.send({ topic, messages: [{ partition: 0, value: Buffer.from("later") }] });
          written++;
        }
      })();
      const counts = new Map<number, number>();
      try {
        const reached = await readTopic(kafka, {
          topic,
          from: new Map([
            [0, 0n],
            [1, 0n],
          ]),
          fetch: { maxBytesPerPartition: 256 * 1024, maxBytes: 256 * 1024 },
          onBatch: (records) => {
            for (const r of records) counts.set(r.partition, (counts.get(r.partition) ?? 0) + 1);
          },
          signal: AbortSignal.timeout(30_000),
        });
        expect(reached.get(1)).toBe(600n);
        // Only what partition 0 held when the read began (its end then), not the writes after it.
        expect(counts.get(0)).toBe(Number(reached.get(0)));
      } finally {
        writing = false;
        await writer;
      }
      expect(counts.get(1)).toBe(600);
      expect(written, "partition 0 grew during the read").toBeGreaterThan(counts.get(0) ?? 0);
    } finally {
      await producer.disconnect();
    }
  }, 60_000);
});
