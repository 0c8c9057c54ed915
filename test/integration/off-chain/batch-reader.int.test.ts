// The batch reader (own Fetch requests, own record-batch decoder) against kafkajs's consumer
// (readTopic) on the real broker's bytes: plain, gzip and transactional batches, committed and
// aborted transactions of two producers overlapping, and the broker's own transaction markers.
// Both readers must hand over the same records, and none of an aborted transaction.
import { randomUUID } from "node:crypto";
import { CompressionTypes } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../../deploy/local/stack.ts";
import { resolveInfra } from "../../../src/app/infra.ts";
import { parseConfig } from "../../../src/config.ts";
import { readTopicBatches } from "../../../src/kafka/batch-reader.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../../src/kafka/client.ts";
import { type FetchSizes, type ReadRecord, readTopic } from "../../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../../src/kafka/topics.ts";

const TOPIC = `test.batch-reader.${randomUUID().slice(0, 8)}`;
const PARTITIONS = 3;
let kafka: KafkaClient;
/** Keys of the records written outside aborted transactions. */
const committed = new Set<string>();
let abortedCount = 0;

const messages = (tag: string, n: number, partition: number) =>
  Array.from({ length: n }, (_, i) => ({
    partition,
    key: `${tag}-${partition}-${i}`,
    value: `${tag} ${i} ${"v".repeat(i % 97)}`,
  }));

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  const infra = await resolveInfra(parseConfig({ ...process.env }), {});
  kafka = createKafka({ brokers: infra.brokers, clientId: "test.batch-reader" });
  await ensureTopics(kafka, [
    { name: TOPIC, partitions: PARTITIONS, cleanupPolicy: "delete" as const, retentionMs: 86_400_000 },
  ]);
  const client = kafkajs(kafka);
  const plain = client.producer({ idempotent: true, maxInFlightRequests: 1 });
  const txA = client.producer({ transactionalId: `${TOPIC}.a`, idempotent: true, maxInFlightRequests: 1 });
  const txB = client.producer({ transactionalId: `${TOPIC}.b`, idempotent: true, maxInFlightRequests: 1 });
  await Promise.all([plain.connect(), txA.connect(), txB.connect()]);
  try {
    for (let round = 0; round < 3; round++) {
      for (let partition = 0; partition < PARTITIONS; partition++) {
        const keep = <M extends { key: string }>(ms: M[]): M[] => {
          for (const m of ms) committed.add(m.key);
          return ms;
        };
        await plain.send({
          topic: TOPIC,
          acks: -1,
          messages: keep(messages(`plain${round}`, 40, partition)),
        });
        await plain.send({
          topic: TOPIC,
          acks: -1,
          compression: CompressionTypes.GZIP,
          messages: keep(messages(`gzip${round}`, 60, partition)),
        });
        // A aborts while B commits, their transactions overlapping in the partition.
        const a = await txA.transaction();
        const b = await txB.transaction();
        const aborted = messages(`abortA${round}`, 25, partition);
        await a.send({ topic: TOPIC, acks: -1, messages: aborted.slice(0, 10) });
        await b.send({ topic: TOPIC, acks: -1, messages: keep(messages(`commitB${round}`, 15, partition)) });
        await a.send({
          topic: TOPIC,
          acks: -1,
          compression: CompressionTypes.GZIP,
          messages: aborted.slice(10),
        });
        await plain.send({
          topic: TOPIC,
          acks: -1,
          messages: keep(messages(`between${round}`, 5, partition)),
        });
        await a.abort();
        abortedCount += aborted.length;
        await b.commit();
        const c = await txA.transaction();
        await c.send({ topic: TOPIC, acks: -1, messages: keep(messages(`commitA${round}`, 20, partition)) });
        await c.commit();
      }
    }
  } finally {
    await Promise.all([plain.disconnect(), txA.disconnect(), txB.disconnect()]);
  }
}, 300_000);

afterAll(async () => {
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [TOPIC] }).catch(() => {});
  await admin.disconnect();
});

type Plain = [number, string, string | null, string | null];

async function readAll(
  read: typeof readTopic,
  from: Map<number, bigint>,
  fetch?: FetchSizes,
): Promise<{ records: Plain[]; stopped: Map<number, bigint> }> {
  const records: Plain[] = [];
  const stopped = await read(kafka, {
    topic: TOPIC,
    from,
    onBatch: (batch: ReadRecord[]) => {
      for (const r of batch) {
        records.push([r.partition, String(r.offset), r.key?.toString() ?? null, r.value?.toString() ?? null]);
      }
    },
    ...(fetch ? { fetch } : {}),
  });
  // Per partition in offset order (the partitions' batches interleave differently per reader).
  records.sort((x, y) => x[0] - y[0] || Number(BigInt(x[1]) - BigInt(y[1])));
  return { records, stopped };
}

describe("the batch reader", () => {
  it("reads the same committed records as kafkajs's consumer, none of an aborted transaction", async () => {
    const all = new Map(Array.from({ length: PARTITIONS }, (_, p) => [p, 0n]));
    const theirs = await readAll(readTopic, all);
    const ours = await readAll(readTopicBatches, all);
    expect(ours.records).toEqual(theirs.records);
    expect(new Set(ours.records.map((r) => r[2]))).toEqual(committed);
    expect(ours.records.some((r) => r[2]?.startsWith("abortA"))).toBe(false);
    expect(abortedCount).toBe(3 * PARTITIONS * 25);
    expect(ours.stopped).toEqual(await stableEndOffsets(kafka, TOPIC));
    expect(ours.stopped).toEqual(theirs.stopped);
  });

  it("agrees from offsets inside an aborted transaction and with fetches smaller than a batch", async () => {
    // Partition 0's first aborted record: reading from there must skip the rest of that transaction.
    const whole = await readAll(readTopic, new Map([[0, 0n]]));
    const plain0 = whole.records.filter((r) => r[2]?.startsWith("plain0-0")).length;
    const gzip0 = whole.records.filter((r) => r[2]?.startsWith("gzip0-0")).length;
    const insideAbort = BigInt(plain0 + gzip0 + 3);
    const from = new Map([
      [0, insideAbort],
      [1, 50n],
      [2, 0n],
    ]);
    const small = { maxBytesPerPartition: 2048, maxBytes: 4096 };
    const theirs = await readAll(readTopic, from);
    const ours = await readAll(readTopicBatches, from, small);
    expect(ours.records.length).toBeGreaterThan(0);
    expect(ours.records).toEqual(theirs.records);
    expect(ours.records.some((r) => r[0] === 0 && BigInt(r[1]) < insideAbort)).toBe(false);
  });
});
