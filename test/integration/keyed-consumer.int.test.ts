// The keyed consumer (src/kafka/keyed-consumer.ts) against the real broker: a record whose handler
// fails (a store that did not answer) is worked again after a backoff, its key's later records wait
// behind it in order, other keys go on, and every offset is committed once all are done. Before
// this, a failure left the record and every later one of its key uncommitted and unworked until the
// partition moved to another process. A record that fails for good (a terminal error) is parked on
// a dead-letter topic instead, and the rest goes on. Scratch topics test.keyed.*, new ones per run.

import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { listParked } from "../../src/kafka/dead-letter.ts";
import { createKeyedConsumer } from "../../src/kafka/keyed-consumer.ts";
import { ensureTopics } from "../../src/kafka/topics.ts";
import { TerminalError } from "../../src/support/errors.ts";
import { waitFor } from "../support/actor-host.ts";
import { codecs } from "../support/codecs.ts";

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
      codecs,
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

  it("parks a record that fails for good, with its origin and error, and goes on with the rest", async () => {
    const topic = `test.keyed.${randomUUID()}`;
    const dead = `test.keyed.${randomUUID()}.deadletter`;
    const groupId = `test.keyed.${randomUUID()}`;
    await ensureTopics(kafka, [
      { name: topic, partitions: 2, cleanupPolicy: "delete", retentionMs: 3_600_000 },
      { name: dead, partitions: 1, cleanupPolicy: "delete", retentionMs: 3_600_000 },
    ]);
    const producer = kafkajs(kafka).producer();
    await producer.connect();
    // 1,000 records over 10 keys; one of them can never be worked (as a command that cannot be read).
    const values = Array.from({ length: 1000 }, (_, i) => `k${i % 10}:${i}`);
    const poison = "k3:503";
    const sent = await producer.send({
      topic,
      messages: values.map((v) => ({
        key: v.split(":")[0] ?? "",
        value: Buffer.from(v),
        ...(v === poison && { headers: { trace: "t-1" } }),
      })),
    });
    await producer.disconnect();

    const worked = new Map<string, number>();
    const poisonSeenAt: Array<{ partition: number; offset: number }> = [];
    const consumer = createKeyedConsumer(kafka, {
      codecs,
      groupId,
      topic,
      deadLetterTopic: dead,
      maxInFlight: 64,
      log: () => {},
      handle: async (record) => {
        const v = record.value?.toString() ?? "";
        if (v === poison) {
          poisonSeenAt.push({ partition: record.partition, offset: Number(record.offset) });
          throw new TerminalError("record_malformed", "this record can never be worked");
        }
        worked.set(v, (worked.get(v) ?? 0) + 1);
      },
    });
    await consumer.start();
    try {
      await waitFor(
        "every other record worked",
        () => (worked.size === values.length - 1 ? true : undefined),
        30_000,
      );
      expect([...worked.values()].every((n) => n === 1)).toBe(true);
      expect(worked.has(poison)).toBe(false);
      // Terminal: tried once, not again and again.
      expect(poisonSeenAt).toHaveLength(1);
      const [parked, ...more] = await waitFor("the record parked", async () => {
        const found = await listParked(kafka, codecs.deadLetter, dead);
        return found.length > 0 ? found : undefined;
      });
      expect(more).toEqual([]);
      expect(parked?.letter).toMatchObject({
        kind: "parked",
        group: groupId,
        topic,
        ...poisonSeenAt[0],
        key: Buffer.from("k3").toString("base64"),
        value: Buffer.from(poison).toString("base64"),
        headers: [{ name: "trace", value: Buffer.from("t-1").toString("base64") }],
        errorCode: "record_malformed",
        errorMessage: "this record can never be worked",
      });
      // Every offset committed, past the parked record too: nothing waits behind it.
      const admin = kafkajs(kafka).admin();
      await admin.connect();
      try {
        const ends = await admin.fetchTopicOffsets(topic);
        expect(sent.length).toBeGreaterThan(0);
        await waitFor("the offsets committed past it", async () => {
          const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
          const done = ends.every(
            (e) => committed?.partitions.find((x) => x.partition === e.partition)?.offset === e.high,
          );
          return done ? true : undefined;
        });
      } finally {
        await admin.disconnect();
      }
    } finally {
      await consumer.stop();
    }
  }, 60_000);
});
