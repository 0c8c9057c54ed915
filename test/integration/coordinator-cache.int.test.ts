// kafkajs's coordinators cached per producer (patches/kafkajs+2.2.4.patch): what one transaction of
// createPartitionTransactor sends, counted on the client's sockets, and transactions going on across
// a restart of the broker that coordinates them. A broker of this file's own, since it stops it.

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../src/kafka/topics.ts";
import {
  createPartitionTransactor,
  TransactionFailedError,
  type TransactionWork,
} from "../../src/kafka/transactions.ts";
import { waitFor } from "../support/actor-host.ts";
import { countingSocketFactory, type RequestCounter, type RequestCounts } from "../support/kafka-requests.ts";
import { startThrowawayServer, type ThrowawayServer } from "../support/throwaway-servers.ts";

const DATA = "test.coord.data";
const OUTBOX = "test.coord.outbox";
/** A session partition's actor reads three co-partitioned inputs; its transaction commits all three. */
const INPUTS = ["test.coord.in.a", "test.coord.in.b", "test.coord.in.c"];

let broker: ThrowawayServer;
let kafka: KafkaClient;
let counter: RequestCounter;

beforeAll(async () => {
  broker = await startThrowawayServer("kafka");
  const counting = countingSocketFactory();
  counter = counting.counter;
  kafka = createKafka({
    brokers: [broker.address],
    clientId: "test.coordinators",
    socketFactory: counting.socketFactory,
  });
  await ensureTopics(
    kafka,
    [DATA, OUTBOX, ...INPUTS].map((name) => ({
      name,
      partitions: 2,
      cleanupPolicy: "delete" as const,
      retentionMs: 3_600_000,
    })),
  );
}, 120_000);

afterAll(async () => {
  await broker?.remove();
});

/** One test's transactional id, group and records; `run(i)` writes record i and input offset i. */
function scenario() {
  const id = randomUUID();
  const groupId = `test.coord.${id}`;
  const appended = new Map<number, bigint>();
  const work = (i: number): TransactionWork => ({
    // Records in both partitions of one topic and in another topic: four partitions in the transaction
    sends: [
      {
        topic: DATA,
        messages: [0, 1].map((partition) => ({ key: id, value: Buffer.from(`${id}:${i}`), partition })),
      },
      {
        topic: OUTBOX,
        messages: [0, 1].map((partition) => ({ key: id, value: Buffer.from("x"), partition })),
      },
    ],
    offsets: { groupId, partition: 0, topics: INPUTS.map((topic) => ({ topic, nextOffset: BigInt(i) })) },
  });
  const transactor = createPartitionTransactor(kafka, `test.coord.${id}`);
  return {
    transactor,
    async run(i: number) {
      const out = await transactor.run(work(i));
      for (const [key, offset] of out)
        if (key.startsWith(`${DATA}:`)) appended.set(Number(key.split(":")[1]), offset);
    },
    /** Every committed record of this scenario in partition 0, in order. */
    async values(): Promise<string[]> {
      await waitFor("the commits to become stable", async () => {
        const ends = await stableEndOffsets(kafka, DATA);
        return [...appended].every(([p, last]) => (ends.get(p) ?? 0n) > last) ? true : undefined;
      });
      const seen: string[] = [];
      await readTopic(kafka, {
        topic: DATA,
        from: new Map([[0, 0n]]),
        onBatch: (records) => {
          for (const r of records) {
            const text = r.value?.toString() ?? "";
            if (text.startsWith(`${id}:`)) seen.push(text.slice(id.length + 1));
          }
        },
      });
      return seen;
    },
    /** The group's committed offset of partition 0 of each input topic. */
    async committed(): Promise<Array<bigint | null>> {
      const admin = kafkajs(kafka).admin();
      await admin.connect();
      try {
        const topics = await admin.fetchOffsets({ groupId, topics: INPUTS });
        return INPUTS.map((name) => {
          const p = topics.find((t) => t.topic === name)?.partitions.find((x) => x.partition === 0);
          return p && Number(p.offset) >= 0 ? BigInt(p.offset) : null;
        });
      } finally {
        await admin.disconnect();
      }
    },
  };
}

const perTransaction = (counts: RequestCounts, n: number) =>
  [...counts].map(([api, c]) => `${api} ${(c / n).toFixed(2)}`).join(", ");

describe("a transaction whose coordinators are known", () => {
  it("sends no FindCoordinator and one AddOffsetsToTxn, TxnOffsetCommit and EndTxn, whatever its partitions", async () => {
    const s = scenario();
    await s.run(1); // opens the producer and learns both coordinators
    const before = new Map(counter.counts);
    const n = 30;
    for (let i = 2; i < 2 + n; i++) await s.run(i);
    const sent = counter.since(before);
    console.log(`requests per transaction: ${perTransaction(sent, n)}`);

    expect(sent.get("FindCoordinator") ?? 0).toBe(0);
    expect(sent.get("Metadata") ?? 0).toBe(0);
    // Four output partitions and three input topics' offsets, one request each
    expect(sent.get("Produce")).toBe(n);
    expect(sent.get("AddOffsetsToTxn")).toBe(n);
    expect(sent.get("TxnOffsetCommit")).toBe(n);
    expect(sent.get("EndTxn")).toBe(n);
    // One, plus a retry when a transaction begins while its predecessor's markers are written
    expect(sent.get("AddPartitionsToTxn")).toBeGreaterThanOrEqual(n);
    expect(sent.get("AddPartitionsToTxn")).toBeLessThanOrEqual(3 * n);

    expect(await s.committed()).toEqual(INPUTS.map(() => BigInt(n + 1)));
    expect(await s.values()).toEqual(Array.from({ length: n + 1 }, (_, i) => String(i + 1)));
    await s.transactor.close();
  }, 60_000);
});

describe("the coordinator moves (its broker restarts under a stream of transactions)", () => {
  it("transactions go on, each committed exactly once, and the coordinators are cached again after", async () => {
    const s = scenario();
    for (let i = 1; i <= 5; i++) await s.run(i);
    const before = new Map(counter.counts);

    // As the actor host does after a failed transaction: re-initialise (fence), learn from the log
    // whether the failed one committed, go on. While the broker is away the fence fails too.
    let failures = 0;
    const recover = async (i: number) => {
      for (;;) {
        try {
          await s.transactor.fence();
          return (await s.committed())[0] === BigInt(i);
        } catch {
          failures++;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
    };
    let next = 6;
    let last: number | null = null;
    const stream = (async () => {
      while (last === null || next <= last) {
        try {
          await s.run(next);
          next++;
        } catch (error) {
          if (!(error instanceof TransactionFailedError)) throw error;
          failures++;
          const committed = await recover(next);
          console.log(`transaction ${next} failed (${error.message}); committed: ${committed}`);
          if (committed) next++;
        }
      }
    })();

    await new Promise((r) => setTimeout(r, 300));
    const restarted = Date.now();
    await broker.stop();
    await broker.start();
    const restartMs = Date.now() - restarted;
    last = next + 10; // ten more once the broker is back
    await stream;
    const sinceRestart = counter.since(before);

    // Once settled, the coordinators are cached again
    const settled = new Map(counter.counts);
    for (let i = last + 1; i <= last + 10; i++) await s.run(i);
    const afterSettling = counter.since(settled);
    console.log(
      `restart ${restartMs} ms, ${last - 5} transactions across it, ${failures} failed transactions or fences; requests since the restart: ${perTransaction(sinceRestart, 1)}; per transaction after: ${perTransaction(afterSettling, 10)}`,
    );

    // The stream ran across the restart by construction (it only learns `last` once the broker is back).
    // Whether a transaction failed, and whether a lookup was needed, depends on timing: with one broker
    // the coordinator comes back at the same address, and on the quiet CI machine kafkajs's own retries
    // rode the outage out with no lookup at all. The look-up after each coordinator error is shown by
    // test/unit/kafkajs-coordinators.unit.test.ts; here: nothing lost or doubled, then cached again.
    expect(afterSettling.get("FindCoordinator") ?? 0).toBe(0);
    expect(afterSettling.get("TxnOffsetCommit")).toBe(10);
    expect(await s.values()).toEqual(Array.from({ length: last + 10 }, (_, i) => String(i + 1)));
    expect(await s.committed()).toEqual(INPUTS.map(() => BigInt(last + 10)));
    await s.transactor.close();
  }, 120_000);
});
