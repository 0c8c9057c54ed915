import { CompressionTypes } from "kafkajs";
import { describe, expect, it } from "vitest";
import { parseFetchResponse } from "../../src/kafka/batch-reader.ts";
import { type AbortedTransaction, decodeRecordBatches } from "../../src/kafka/record-batches.ts";
import {
  batchBytes,
  kafkajsMessages,
  markerBytes,
  markerKey,
  newEncoder,
} from "../support/record-batch-bytes.ts";

/**
 * Our record-batch decoder against kafkajs's, on the same bytes, which kafkajs's own encoder writes:
 * kafkajs decodes them as its consumer does (the Fetch response's batch decoder, then its Batch,
 * which drops records before the fetched offset, aborted transactions and control records), and
 * both must hand over the same records in the same order. Each case also states the offsets it
 * expects, so a fault both decoders shared would still fail it.
 */

interface Plain {
  offset: number;
  key: string | null;
  value: string | null;
}

/** What kafkajs's consumer hands to eachBatch for these fetched bytes. */
async function kafkajsRecords(bytes: Buffer, from: number, aborted: AbortedTransaction[]): Promise<Plain[]> {
  return (await kafkajsMessages(bytes, from, aborted)).map((m) => ({
    offset: Number(m.offset),
    key: m.key?.toString() ?? null,
    value: m.value?.toString() ?? null,
  }));
}

async function ourRecords(bytes: Buffer, from: number, aborted: AbortedTransaction[]) {
  const { records, next } = await decodeRecordBatches(bytes, from, aborted);
  return {
    next,
    records: records.map((r) => ({
      offset: r.at,
      key: r.key?.toString() ?? null,
      value: r.value?.toString() ?? null,
    })),
  };
}

/** Decodes with both; they must agree, and the offsets handed over must be `offsets`. */
async function expectBoth(bytes: Buffer, from: number, aborted: AbortedTransaction[], offsets: number[]) {
  const theirs = await kafkajsRecords(bytes, from, aborted);
  const ours = await ourRecords(bytes, from, aborted);
  expect(ours.records).toEqual(theirs);
  expect(ours.records.map((r) => r.offset)).toEqual(offsets);
  return ours;
}

const rec = (key: string | null, value: string | null, headers?: Record<string, string>) => ({
  key: key === null ? null : Buffer.from(key),
  value: value === null ? null : Buffer.from(value),
  ...(headers ? { headers } : {}),
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
const many = (n: number, tag: string) =>
  range(0, n).map((i) => rec(`s-${i % 7}`, `${tag}-${i}-${"x".repeat(i % 300)}`));

describe("decodeRecordBatches, against kafkajs's decoder on the same bytes", () => {
  it("reads plain batches: keys, values, null keys and values, headers skipped, records before the fetched offset dropped", async () => {
    const bytes = Buffer.concat([
      await batchBytes({ base: 0, records: many(150, "a") }),
      await batchBytes({
        base: 150,
        records: [rec(null, "no key"), rec("k", null), rec("k", "", { h: "v", i: "w" })],
      }),
      await batchBytes({ base: 153, records: many(40, "b") }),
    ]);
    const { next } = await expectBoth(bytes, 0, [], range(0, 193));
    expect(next).toBe(193);
    await expectBoth(bytes, 151, [], range(151, 193));
  });

  it("reads gzip batches, a batch that starts before the fetched offset included", async () => {
    const bytes = Buffer.concat([
      await batchBytes({ base: 10, records: many(500, "gz"), compression: CompressionTypes.GZIP }),
      await batchBytes({ base: 510, records: many(5, "plain") }),
      await batchBytes({ base: 515, records: many(20, "gz2"), compression: CompressionTypes.GZIP }),
    ]);
    await expectBoth(bytes, 10, [], range(10, 535));
    const { next } = await expectBoth(bytes, 300, [], range(300, 535));
    expect(next).toBe(535);
  });

  it("reads headers, null keys and null values inside gzip batches and committed transactions", async () => {
    const odd = [
      rec(null, "no key", { trace: "t-1" }),
      rec("k", null, { a: "1", b: "2" }),
      rec(null, null),
      rec("k", "", { empty: "" }),
      rec("κλειδί", "τιμή", { "h-ü": "ö" }),
    ];
    const bytes = Buffer.concat([
      await batchBytes({ base: 0, records: odd, compression: CompressionTypes.GZIP }),
      await batchBytes({ base: 5, records: odd, producerId: 3, transactional: true }),
      await batchBytes({
        base: 10,
        records: odd,
        producerId: 3,
        transactional: true,
        compression: CompressionTypes.GZIP,
      }),
      await markerBytes(15, 3, "commit"),
    ]);
    const { next } = await expectBoth(bytes, 0, [], range(0, 15));
    expect(next).toBe(16);
    await expectBoth(bytes, 12, [], range(12, 15));
  });

  it("drops an aborted transaction's records and the markers, keeps committed and plain ones", async () => {
    const A = 7;
    const B = 9;
    const bytes = Buffer.concat([
      await batchBytes({ base: 0, records: many(3, "A1"), producerId: A, transactional: true }),
      await batchBytes({ base: 3, records: many(2, "B1"), producerId: B, transactional: true }),
      await batchBytes({
        base: 5,
        records: many(4, "A1gz"),
        producerId: A,
        transactional: true,
        compression: CompressionTypes.GZIP,
      }),
      await batchBytes({ base: 9, records: many(2, "plain") }),
      await markerBytes(11, A, "abort"),
      await markerBytes(12, B, "commit"),
      await batchBytes({ base: 13, records: many(2, "A2"), producerId: A, transactional: true }),
      await markerBytes(15, A, "commit"),
      await batchBytes({ base: 16, records: many(1, "plain2") }),
    ]);
    const aborted = [{ producerId: BigInt(A), firstOffset: 0n }];
    const { next } = await expectBoth(bytes, 0, aborted, [3, 4, 9, 10, 13, 14, 16]);
    expect(next).toBe(17);
    // Fetched from inside the aborted transaction: the broker lists it, its first offset before the fetch.
    await expectBoth(bytes, 6, aborted, [9, 10, 13, 14, 16]);
  });

  it("keeps apart two aborted transactions of different producers that overlap", async () => {
    const bytes = Buffer.concat([
      await batchBytes({ base: 0, records: many(2, "A"), producerId: 1, transactional: true }),
      await batchBytes({ base: 2, records: many(2, "B"), producerId: 2, transactional: true }),
      await batchBytes({ base: 4, records: many(2, "C"), producerId: 3, transactional: true }),
      await markerBytes(6, 1, "abort"),
      await markerBytes(7, 3, "commit"),
      await batchBytes({ base: 8, records: many(2, "B more"), producerId: 2, transactional: true }),
      await markerBytes(10, 2, "abort"),
      await batchBytes({ base: 11, records: many(2, "A next"), producerId: 1, transactional: true }),
      await markerBytes(13, 1, "commit"),
    ]);
    const aborted = [
      { producerId: 2n, firstOffset: 2n },
      { producerId: 1n, firstOffset: 0n },
    ];
    await expectBoth(bytes, 0, aborted, [4, 5, 11, 12]);
    await expectBoth(bytes, 5, aborted, [5, 11, 12]);
  });

  it("treats a data record keyed like an abort marker as data", async () => {
    const abortKey = markerKey("abort");
    const bytes = Buffer.concat([
      await batchBytes({ base: 0, records: many(2, "A"), producerId: 4, transactional: true }),
      await batchBytes({ base: 2, records: [{ key: abortKey, value: Buffer.from("data") }] }),
      await batchBytes({ base: 3, records: many(2, "A"), producerId: 4, transactional: true }),
      await markerBytes(5, 4, "abort"),
    ]);
    await expectBoth(bytes, 0, [{ producerId: 4n, firstOffset: 0n }], [2]);
  });

  it("leaves a batch cut off by the fetch's size for the next fetch", async () => {
    const whole = Buffer.concat([
      await batchBytes({ base: 0, records: many(30, "a") }),
      await batchBytes({ base: 30, records: many(30, "b") }),
    ]);
    const first = (await batchBytes({ base: 0, records: many(30, "a") })).length;
    for (const cut of [first + 1, first + 40, whole.length - 1]) {
      const { next } = await expectBoth(whole.subarray(0, cut), 0, [], range(0, 30));
      expect(next).toBe(30);
    }
    const { next } = await expectBoth(whole.subarray(0, 20), 0, [], []);
    expect(next).toBeNull();
  });

  it("reports the end of batches holding only markers and aborted records, with no records", async () => {
    const bytes = Buffer.concat([
      await batchBytes({ base: 40, records: many(3, "A"), producerId: 5, transactional: true }),
      await markerBytes(43, 5, "abort"),
    ]);
    const { next } = await expectBoth(bytes, 40, [{ producerId: 5n, firstOffset: 40n }], []);
    expect(next).toBe(44);
  });
});

describe("parseFetchResponse", () => {
  it("reads each partition's error code, aborted transactions and record bytes", async () => {
    const records = await batchBytes({ base: 0, records: many(3, "r") });
    const partition = (id: number, code: number, aborted: Array<[number, number]>, bytes: Buffer | null) =>
      newEncoder()
        .writeInt32(id)
        .writeInt16(code)
        .writeInt64(100)
        .writeInt64(90)
        .writeInt64(0)
        .writeArray(aborted.map(([p, o]) => newEncoder().writeInt64(p).writeInt64(o)))
        .writeInt32(-1)
        .writeBytes(bytes);
    const raw = newEncoder()
      .writeInt32(0)
      .writeInt16(0)
      .writeInt32(0)
      .writeArray([
        newEncoder()
          .writeString("topic")
          .writeArray([partition(3, 0, [[7, 12]], records), partition(5, 6, [], null)]),
      ]).buffer;
    const parsed = parseFetchResponse(raw);
    expect(parsed.map((p) => [p.partition, p.errorCode, p.aborted, p.records.length])).toEqual([
      [3, 0, [{ producerId: 7n, firstOffset: 12n }], records.length],
      [5, 6, [], 0],
    ]);
    expect(Buffer.compare(parsed[0]?.records as Buffer, records)).toBe(0);
  });
});
