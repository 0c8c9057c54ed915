// The fault paths of createPartitionTransactor against the real broker: zombie fencing, failed
// transactions, back-to-back transactions with re-initialisations, and input offsets that move
// exactly with the data. Scratch topics (test.tx.*) and a fresh group and transactional id per test.

import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { createPlainProducer } from "../../src/kafka/at-least-once.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../src/kafka/topics.ts";
import {
  createPartitionTransactor,
  type PartitionTransactor,
  TransactionFailedError,
  type TransactionWork,
} from "../../src/kafka/transactions.ts";
import { waitFor } from "../support/actor-host.ts";

const DATA = "test.tx.data";
const INPUT = "test.tx.input";
const scratch = (name: string) => ({
  name,
  partitions: 2,
  cleanupPolicy: "delete" as const,
  retentionMs: 86_400_000,
});

let kafka: KafkaClient;

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  const infra = await resolveInfra(parseConfig({ ...process.env }), {});
  kafka = createKafka({ brokers: infra.brokers, clientId: "test.transactions" });
  await ensureTopics(kafka, [scratch(DATA), scratch(INPUT)]);
});

/** One test's view of the scratch topics: its own transactional id, group and record prefix. */
async function scenario() {
  const run = randomUUID();
  const groupId = `test.tx.${run}`;
  const transactionalId = `test.tx.${run}`;
  const from = await stableEndOffsets(kafka, DATA);
  const transactors: PartitionTransactor[] = [];
  /** The newest offset a committed run of this test appended to each DATA partition. */
  const appendedTo = new Map<number, bigint>();

  const work = (
    values: string[],
    nextOffset: bigint,
    opts: { partition?: number; extra?: TransactionWork["sends"] } = {},
  ): TransactionWork => ({
    sends: [
      {
        topic: DATA,
        messages: values.map((v) => ({
          key: run,
          value: Buffer.from(`${run}:${v}`),
          partition: opts.partition ?? 0,
        })),
      },
      ...(opts.extra ?? []),
    ],
    offsets: { groupId, partition: 0, topics: [{ topic: INPUT, nextOffset }] },
  });

  return {
    run,
    groupId,
    transactionalId,
    work,
    transactor(): PartitionTransactor {
      const t = createPartitionTransactor(kafka, transactionalId);
      transactors.push(t);
      return {
        ...t,
        async run(w) {
          const appended = await t.run(w);
          for (const [key, offset] of appended) {
            const [topic, partition] = key.split(":");
            if (topic === DATA) appendedTo.set(Number(partition), offset);
          }
          return appended;
        },
      };
    },
    /** This test's records a read_committed reader sees, by partition and offset. */
    async visible(): Promise<Array<{ value: string; partition: number; offset: bigint }>> {
      // A commit returns before the broker has written its markers, and until then the last stable
      // offset, where a reader stops, stays before the transaction's records.
      await waitFor(
        "the committed records to become stable",
        async () => {
          const ends = await stableEndOffsets(kafka, DATA);
          return [...appendedTo].every(([p, last]) => (ends.get(p) ?? 0n) > last) ? true : undefined;
        },
        10_000,
      );
      const seen: Array<{ value: string; partition: number; offset: bigint }> = [];
      await readTopic(kafka, {
        topic: DATA,
        from,
        onBatch: (records) => {
          for (const r of records) {
            const text = r.value?.toString() ?? "";
            if (text.startsWith(`${run}:`))
              seen.push({ value: text.slice(run.length + 1), partition: r.partition, offset: r.offset });
          }
        },
      });
      return seen.sort((a, b) => a.partition - b.partition || Number(a.offset - b.offset));
    },
    async values(): Promise<string[]> {
      return (await this.visible()).map((r) => r.value);
    },
    /** The group's committed offset of the input partition, or null. */
    async committed(): Promise<bigint | null> {
      const admin = kafkajs(kafka).admin();
      await admin.connect();
      try {
        const [topic] = await admin.fetchOffsets({ groupId, topics: [INPUT] });
        const p = topic?.partitions.find((x) => x.partition === 0);
        return p && Number(p.offset) >= 0 ? BigInt(p.offset) : null;
      } finally {
        await admin.disconnect();
      }
    },
    async close() {
      await Promise.all(transactors.map((t) => t.close()));
    },
  };
}

const failure = (e: unknown) => (e instanceof TransactionFailedError ? e : null);

describe("zombie fencing", () => {
  it("a transactor fenced by a second one with the same id fails its next run and writes nothing visible", async () => {
    const s = await scenario();
    const first = s.transactor();
    const second = s.transactor();
    await first.run(s.work(["first-1"], 1n));
    await second.fence();

    const error = await first.run(s.work(["zombie"], 2n)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionFailedError);
    expect(failure(error)?.indefinite).toBe(false);
    expect(String(failure(error)?.message)).toMatch(/epoch|fenced/i);

    await second.run(s.work(["second-1"], 3n));
    expect(await s.values()).toEqual(["first-1", "second-1"]);
    expect(await s.committed()).toBe(3n);
    await s.close();
  });

  it("fence() aborts a zombie's open transaction: its records never become visible and its commit fails", async () => {
    const s = await scenario();
    // A host paused between its sends and its commit: records and offsets are in, the commit is not.
    const zombie = kafkajs(kafka).producer({
      transactionalId: s.transactionalId,
      idempotent: true,
      maxInFlightRequests: 1,
    });
    await zombie.connect();
    const txn = await zombie.transaction();
    await txn.send({
      topic: DATA,
      messages: [{ key: s.run, value: Buffer.from(`${s.run}:zombie`), partition: 0 }],
    });
    await txn.sendOffsets({
      consumerGroupId: s.groupId,
      topics: [{ topic: INPUT, partitions: [{ partition: 0, offset: "99" }] }],
    });

    const owner = s.transactor();
    await owner.fence();
    await expect(txn.commit()).rejects.toThrow(/epoch|fenced/i);
    // kafkajs keeps such a producer in a state where no new transaction can begin: the reason the
    // transactor throws its producer away after any failure instead of reusing it.
    await expect(zombie.transaction()).rejects.toThrow(/state/i);
    await zombie.disconnect();

    await owner.run(s.work(["owner"], 5n));
    expect(await s.values()).toEqual(["owner"]);
    expect(await s.committed()).toBe(5n);
    await s.close();
  });

  it("a run racing a fence either commits all of its records and its offset, or none of them", async () => {
    const s = await scenario();
    const outcomes: Array<{ i: number; committed: boolean }> = [];
    for (let i = 1; i <= 20; i++) {
      const first = s.transactor();
      await first.fence();
      const second = s.transactor();
      const running = first.run(s.work([`${i}-a`, `${i}-b`, `${i}-c`], BigInt(i))).then(
        () => true,
        (e: unknown) => {
          if (!(e instanceof TransactionFailedError)) throw e;
          return false;
        },
      );
      await sleep(i % 5); // lands the fence before, during or after the run
      await second.fence();
      outcomes.push({ i, committed: await running });
      await Promise.all([first.close(), second.close()]);
    }
    const expected = outcomes.filter((o) => o.committed).flatMap((o) => [`${o.i}-a`, `${o.i}-b`, `${o.i}-c`]);
    expect(await s.values()).toEqual(expected);
    const last = outcomes.filter((o) => o.committed).at(-1);
    expect(await s.committed()).toBe(last ? BigInt(last.i) : null);
    console.log(
      `race: ${outcomes.filter((o) => o.committed).length} of ${outcomes.length} runs committed before the fence`,
    );
    await s.close();
  });
});

describe("failed transactions", () => {
  it("a send to a partition that does not exist fails the whole transaction, and the next run succeeds", async () => {
    const s = await scenario();
    const t = s.transactor();
    // kafkajs drops messages for a partition missing from the metadata without an error; the good
    // record sent with them must be aborted, not committed with the offset.
    const error = await t
      .run(
        s.work(["good"], 10n, {
          extra: [{ topic: DATA, messages: [{ key: s.run, value: Buffer.from("x"), partition: 7 }] }],
        }),
      )
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionFailedError);
    expect(failure(error)?.indefinite).toBe(false);

    await t.run(s.work(["next"], 11n));
    expect(await s.values()).toEqual(["next"]);
    expect(await s.committed()).toBe(11n);
    await s.close();
  });

  it("a record the broker refuses aborts the records already appended in the transaction", async () => {
    const s = await scenario();
    const t = s.transactor();
    const tooLarge = { key: s.run, value: Buffer.alloc(2 * 1024 * 1024, 1), partition: 1 };
    const error = await t
      .run(s.work(["appended-then-aborted"], 20n, { extra: [{ topic: DATA, messages: [tooLarge] }] }))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TransactionFailedError);
    expect(String(failure(error)?.message)).toMatch(/larger than the max message size/);

    await t.run(s.work(["next"], 21n));
    expect(await s.values()).toEqual(["next"]);
    expect(await s.committed()).toBe(21n);
    await s.close();
  });

  it("a transactor whose transaction and abort were both refused (fenced) runs its next one", async () => {
    const s = await scenario();
    const first = s.transactor();
    const second = s.transactor();
    await first.fence();
    await second.fence();
    // first's run fails, and so does its abort: a reused kafkajs producer would be stuck here.
    await expect(first.run(s.work(["fenced"], 30n))).rejects.toBeInstanceOf(TransactionFailedError);
    await first.run(s.work(["recovered"], 31n));
    expect(await s.values()).toEqual(["recovered"]);
    expect(await s.committed()).toBe(31n);
    await s.close();
  });
});

describe("back-to-back transactions", () => {
  it("200 transactions in a row, re-initialised every 25 and half of them offsets only, all succeed", async () => {
    const s = await scenario();
    const t = s.transactor();
    const started = Date.now();
    const expected: string[] = [];
    for (let i = 1; i <= 200; i++) {
      // An offsets-only transaction straight after a commit meets CONCURRENT_TRANSACTIONS from the
      // coordinator while it writes that commit's markers; it must be retried, not surfaced.
      const offsetsOnly = i % 2 === 0;
      const values = offsetsOnly ? [] : [`${i}`];
      expected.push(...values);
      await t.run(s.work(values, BigInt(i)));
      if (i % 25 === 0) await t.fence();
    }
    const ms = Date.now() - started;
    console.log(`200 transactions (8 re-initialisations) in ${ms} ms`);
    expect(await s.values()).toEqual(expected);
    expect(await s.committed()).toBe(200n);
    await s.close();
  });
});

describe("input offsets", () => {
  it("the committed input offset moves exactly with the data, and run() reports where the data landed", async () => {
    const s = await scenario();
    const t = s.transactor();
    const other = s.transactor();
    const state = async () => ({ values: await s.values(), committed: await s.committed() });

    const appended = await t.run(s.work(["d1", "d2"], 10n));
    const [, d2] = await s.visible();
    expect(appended.get(`${DATA}:0`)).toBe(d2?.offset);
    expect(await state()).toEqual({ values: ["d1", "d2"], committed: 10n });

    const badPartition = { topic: DATA, messages: [{ key: s.run, value: Buffer.from("x"), partition: 9 }] };
    await expect(t.run(s.work(["lost-1"], 20n, { extra: [badPartition] }))).rejects.toThrow();
    expect(await state()).toEqual({ values: ["d1", "d2"], committed: 10n });

    // t threw its producer away after that failure: open it again, then fence it.
    await t.fence();
    await other.fence();
    await expect(t.run(s.work(["lost-2"], 30n))).rejects.toThrow();
    expect(await state()).toEqual({ values: ["d1", "d2"], committed: 10n });

    await other.run(s.work([], 40n));
    expect(await state()).toEqual({ values: ["d1", "d2"], committed: 40n });

    const last = await other.run(s.work(["d3"], 50n, { partition: 1 }));
    const visible = await s.visible();
    expect(last.get(`${DATA}:1`)).toBe(visible.find((r) => r.value === "d3")?.offset);
    expect(await state()).toEqual({ values: ["d1", "d2", "d3"], committed: 50n });
    await s.close();
  });
});

describe("plain producer", () => {
  it("sends more than a record batch's worth of data (1 MiB) to one partition in one call", async () => {
    // The at-least-once path (projector, timers) meets the same record batch limit as transactions.
    const s = await scenario();
    const producer = createPlainProducer(kafka);
    await producer.connect();
    const values = Array.from({ length: 4000 }, (_, i) => `${i}:${"y".repeat(500)}`);
    await producer.send(
      DATA,
      values.map((v) => ({ key: s.run, value: Buffer.from(`${s.run}:${v}`), partition: 1 })),
    );
    await producer.disconnect();
    expect(await s.values()).toEqual(values);
  });
});
