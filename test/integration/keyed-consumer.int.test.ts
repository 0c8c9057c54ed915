// The keyed consumer (src/kafka/keyed-consumer.ts) against the real broker: a record whose handler
// fails (a store that did not answer) is worked again after a backoff, its key's later records wait
// behind it in order, other keys go on, and every offset is committed once all are done. Before
// this, a failure left the record and every later one of its key uncommitted and unworked until the
// partition moved to another process. Scratch topic test.keyed.*, a new one per run.

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { createKeyedConsumer } from "../../src/kafka/keyed-consumer.ts";
import { ensureTopics } from "../../src/kafka/topics.ts";
import { waitFor } from "../support/actor-host.ts";

let kafka: KafkaClient;

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  const infra = await resolveInfra(parseConfig({ ...process.env }), {});
  kafka = createKafka({ brokers: infra.brokers, clientId: "test.keyed-consumer" });
});

describe("the keyed consumer", () => {
  it("works a failed record again, holds its key's later records behind it, and commits everything", async () => {
    const topic = `test.keyed.${randomUUID()}`;
    const groupId = `test.keyed.${randomUUID()}`;
    await ensureTopics(kafka, [
      { name: topic, partitions: 1, cleanupPolicy: "delete", retentionMs: 3_600_000 },
    ]);
    const producer = kafkajs(kafka).producer();
    await producer.connect();
    const records = ["a1", "b1", "a2", "b2", "a3"];
    await producer.send({
      topic,
      messages: records.map((v) => ({ key: v.slice(0, 1), value: Buffer.from(v) })),
    });
    await producer.disconnect();

    const worked: string[] = [];
    let failuresLeft = 2;
    const warnings: string[] = [];
    const consumer = createKeyedConsumer(kafka, {
      groupId,
      topic,
      maxInFlight: 8,
      retryBaseMs: 50,
      log: (_level, msg) => warnings.push(msg),
      handle: async (record) => {
        const v = record.value?.toString() ?? "";
        if (v === "a1" && failuresLeft > 0) {
          failuresLeft--;
          throw new Error("the store did not answer");
        }
        worked.push(v);
      },
    });
    await consumer.start();
    try {
      await waitFor(
        "every record worked",
        () => (worked.length === records.length ? true : undefined),
        30_000,
      );
      // Key a in offset order, its first record after two failures; key b went on meanwhile.
      expect(worked.filter((v) => v.startsWith("a"))).toEqual(["a1", "a2", "a3"]);
      expect(worked.filter((v) => v.startsWith("b"))).toEqual(["b1", "b2"]);
      expect(worked.indexOf("b1")).toBeLessThan(worked.indexOf("a1"));
      expect(warnings.filter((w) => w.includes("working it again"))).toHaveLength(2);
      const admin = kafkajs(kafka).admin();
      await admin.connect();
      try {
        await waitFor("the offsets committed", async () => {
          const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
          return committed?.partitions[0]?.offset === String(records.length) ? true : undefined;
        });
      } finally {
        await admin.disconnect();
      }
    } finally {
      await consumer.stop();
    }
  }, 60_000);
});
