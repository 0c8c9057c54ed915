// What a read_committed reader must never hand over: records of aborted transactions, whatever the
// offset it starts at. The actors' partition producers (one transactional id per session partition)
// write interleaved transactions into the same partitions of the outbox topics, and a reader resumes
// in the middle of them (a restore, a replay, the next fetch of a consumer). kafkajs 2.2.4 let such
// records through when more aborted transactions had begun before a fetch than records were left to
// walk past (patches/kafkajs+2.2.4.patch; the exactly-once test counted 1,112 payment.detected for
// 1,000 sessions that way). Real broker, scratch topic, transactional producers of kafkajs itself.

import { randomUUID } from "node:crypto";
import type { Producer } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../src/kafka/topics.ts";
import { waitFor } from "../support/actor-host.ts";

const TOPIC = `test.aborted.${randomUUID().slice(0, 8)}`;
let kafka: KafkaClient;
const producers: Producer[] = [];

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  const infra = await resolveInfra(parseConfig({ ...process.env }), {});
  kafka = createKafka({ brokers: infra.brokers, clientId: "test.aborted" });
  await ensureTopics(kafka, [
    { name: TOPIC, partitions: 1, cleanupPolicy: "delete" as const, retentionMs: 86_400_000 },
  ]);
}, 300_000);

afterAll(async () => {
  for (const p of producers) await p.disconnect().catch(() => {});
});

async function transactional(name: string): Promise<Producer> {
  const p = kafkajs(kafka).producer({
    transactionalId: `test.aborted.${name}.${randomUUID()}`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await p.connect();
  producers.push(p);
  return p;
}

/** Everything a read_committed reader hands over from `from` to the stable end, as values. */
async function readFrom(from: bigint): Promise<Array<{ offset: bigint; value: string }>> {
  const out: Array<{ offset: bigint; value: string }> = [];
  await readTopic(kafka, {
    topic: TOPIC,
    from: new Map([[0, from]]),
    onBatch: (records) => {
      for (const r of records) out.push({ offset: r.offset, value: String(r.value) });
    },
  });
  return out;
}

describe("a read_committed reader over interleaved transactions", () => {
  it("hands over no record of an aborted transaction, from whichever offset it starts", async () => {
    // Three producers open transactions one after another in the same partition, each writes twice
    // (interleaved), then all three abort; a fourth commits after them. Offsets: a1 b1 c1 a2 b2 c2,
    // three abort markers, then d1 d2 and its commit marker.
    const [a, b, c, d] = await Promise.all(["a", "b", "c", "d"].map(transactional));
    if (!a || !b || !c || !d) throw new Error("producers");
    const txns = await Promise.all([a, b, c].map((p) => p.transaction()));
    for (const round of [1, 2])
      for (const [i, t] of txns.entries())
        await t.send({ topic: TOPIC, messages: [{ value: `${"abc"[i]}${round}`, partition: 0 }] });
    for (const t of txns) await t.abort();
    const committed = await d.transaction();
    await committed.send({
      topic: TOPIC,
      messages: [
        { value: "d1", partition: 0 },
        { value: "d2", partition: 0 },
      ],
    });
    await committed.commit();

    // The commit's markers are written after commit() returns: wait for the stable end to pass them.
    const end = await waitFor("the commit marker", async () => {
      const e = (await stableEndOffsets(kafka, TOPIC)).get(0) ?? 0n;
      return e >= 12n ? e : undefined;
    });
    const seenFrom = new Map<bigint, string[]>();
    for (let from = 0n; from < end; from++) {
      seenFrom.set(
        from,
        (await readFrom(from)).map((r) => r.value),
      );
    }
    // From any offset up to d1's, the reader hands over exactly the committed d1 and d2; after that,
    // what is left of them. Before the fix, starting at c2 (offset 5) handed over c2 as well.
    const d1 = 9n;
    for (const [from, values] of seenFrom)
      expect({ from, values }).toEqual({
        from,
        values: from <= d1 ? ["d1", "d2"] : from === d1 + 1n ? ["d2"] : [],
      });
  }, 120_000);
});
