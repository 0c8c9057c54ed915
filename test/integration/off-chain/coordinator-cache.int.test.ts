// kafkajs's coordinators cached per producer (patches/kafkajs+2.2.4.patch): what one transaction of
// createPartitionTransactor sends, counted on the client's sockets, and streams of transactions going
// on across a restart of the broker that coordinates them, none of them lost. A broker of this
// file's own, since it stops it.

import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKafka, type KafkaClient, kafkajs } from "../../../src/kafka/client.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../../src/kafka/topics.ts";
import {
  createPartitionTransactor,
  TransactionFailedError,
  type TransactionWork,
} from "../../../src/kafka/transactions.ts";
import { waitFor } from "../../support/actor-host.ts";
import {
  countingSocketFactory,
  type RequestCounter,
  type RequestCounts,
} from "../../support/kafka-requests.ts";
import { startThrowawayServer, type ThrowawayServer } from "../../support/throwaway-servers.ts";

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

/** One transactional id's group and records; `run(i)` writes record i and input offset i. */
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
    /** One transaction of this id by a plain kafkajs producer, aborted (it fences the transactor's). */
    async abortOne() {
      const producer = kafkajs(kafka).producer({
        transactionalId: `test.coord.${id}`,
        idempotent: true,
        maxInFlightRequests: 1,
      });
      await producer.connect();
      try {
        const t = await producer.transaction();
        await t.sendBatch({
          topicMessages: [DATA, OUTBOX].map((topic) => ({
            topic,
            messages: [0, 1].map((partition) => ({
              key: id,
              value: Buffer.from(`${id}:aborted`),
              partition,
            })),
          })),
        });
        await t.abort();
      } finally {
        await producer.disconnect();
      }
    },
    /** Every committed record of this scenario in each partition of DATA, in order. */
    async values(): Promise<string[][]> {
      // A transaction left open on a partition (no marker) would hold its stable end here.
      await waitFor(
        "the commits to become stable",
        async () => {
          const ends = await stableEndOffsets(kafka, DATA);
          return [...appended].every(([p, last]) => (ends.get(p) ?? 0n) > last) ? true : undefined;
        },
        30_000,
      );
      const seen: string[][] = [[], []];
      await readTopic(kafka, {
        topic: DATA,
        from: new Map([
          [0, 0n],
          [1, 0n],
        ]),
        onBatch: (records) => {
          for (const r of records) {
            const text = r.value?.toString() ?? "";
            if (text.startsWith(`${id}:`)) seen[r.partition]?.push(text.slice(id.length + 1));
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

type Scenario = ReturnType<typeof scenario>;

/**
 * Transactions `from`, `from + 1`, ... of one scenario, recovered the way the actor host does after a
 * failed one: re-initialise (fence), learn from the log whether it committed, go on. Once the
 * broker's stop has begun, no new transaction starts until it is back; then the id's first
 * transaction is aborted (a rollback after a failure: a transaction the broker left open on a
 * partition, its marker skipped, would be aborted with it), then five more. Resolves with the last
 * transaction and the failures.
 */
async function stream(
  s: Scenario,
  from: number,
  broker: { stopping: () => boolean; back: Promise<void>; inFlight: number },
) {
  let failures = 0;
  let next = from;
  let last: number | null = null;
  // What a failed transaction left, committed or not, the log says; fencing first settles it.
  const recover = () =>
    retryUntilDone(async () => {
      await s.transactor.fence();
      if ((await s.committed())[0] === BigInt(next)) next++;
    });
  while (last === null || next <= last) {
    if (last === null && broker.stopping()) {
      await broker.back;
      await retryUntilDone(() => s.abortOne());
      await recover();
      last = next + 4;
    }
    broker.inFlight++;
    try {
      await s.run(next);
      next++;
    } catch (error) {
      if (!(error instanceof TransactionFailedError)) throw error;
      failures++;
      if (broker.stopping() && last === null) continue; // recovered once the broker is back
      await recover();
    } finally {
      broker.inFlight--;
    }
  }
  return { last: next - 1, failures };
}

async function retryUntilDone(fn: () => Promise<void>): Promise<void> {
  for (;;) {
    try {
      return await fn();
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
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
    const want = Array.from({ length: n + 1 }, (_, i) => String(i + 1));
    expect(await s.values()).toEqual([want, want]);
    await s.transactor.close();
  }, 60_000);
});

describe("the coordinator moves (its broker restarts under streams of transactions)", () => {
  it("transactions go on, each committed exactly once, and the coordinators are looked up again", async () => {
    // Twelve transactional ids at once, so that commits are in flight when the broker stops, and each
    // id's first transaction after the restart aborted: on Kafka 4.3-4.4 this lost committed
    // transactions (a marker skipped during the controlled shutdown, DESIGN.md "Coordinators cached");
    // the project's broker is 4.2.x, which queues such a marker until the partition has a leader.
    const scenarios = Array.from({ length: 12 }, () => scenario());
    for (const s of scenarios) await s.run(1);
    const before = new Map(counter.counts);

    let stopping = false;
    let back = () => {};
    const restart = { stopping: () => stopping, back: new Promise<void>((r) => (back = r)), inFlight: 0 };
    const streams = scenarios.map((s) => stream(s, 2, restart));
    await new Promise((r) => setTimeout(r, 500));
    const restartedAt = Date.now();
    stopping = true;
    const inFlightAtStop = restart.inFlight;
    await broker.stop();
    await broker.start();
    const restartMs = Date.now() - restartedAt;
    back(); // each id: an abort, then five more
    const ends = await Promise.all(streams);
    const sinceRestart = counter.since(before);

    // Once settled, the coordinators are cached again
    const s = scenarios[0] as Scenario;
    const settled = new Map(counter.counts);
    const first = (ends[0]?.last ?? 0) + 1;
    for (let i = first; i < first + 10; i++) await s.run(i);
    const afterSettling = counter.since(settled);
    const failures = ends.reduce((sum, e) => sum + e.failures, 0);
    console.log(
      `restart ${restartMs} ms, ${inFlightAtStop} in flight at the stop, ${ends.map((e) => e.last).join("/")} transactions, ${failures} failed transactions or fences; requests since the restart: ${perTransaction(sinceRestart, 1)}; per transaction after: ${perTransaction(afterSettling, 10)}`,
    );

    expect(inFlightAtStop).toBeGreaterThan(0); // transactions were under way when the broker stopped
    expect(sinceRestart.get("FindCoordinator") ?? 0).toBeGreaterThanOrEqual(1);
    expect(afterSettling.get("FindCoordinator") ?? 0).toBe(0);
    expect(afterSettling.get("TxnOffsetCommit")).toBe(10);
    const lasts = ends.map((e, k) => (k === 0 ? first + 9 : e.last));
    for (const [k, sc] of scenarios.entries()) {
      const last = lasts[k] as number;
      // Every transaction whose commit returned is there, once, in order, in both partitions
      const want = Array.from({ length: last }, (_, i) => String(i + 1));
      expect(await sc.values()).toEqual([want, want]);
      expect(await sc.committed()).toEqual(INPUTS.map(() => BigInt(last)));
      await sc.transactor.close();
    }
  }, 180_000);
});
