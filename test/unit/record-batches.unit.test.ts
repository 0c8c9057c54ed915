import { createRequire } from "node:module";
import { CompressionTypes } from "kafkajs";
import { describe, expect, it } from "vitest";
import { parseFetchResponse } from "../../src/kafka/batch-reader.ts";
import { type AbortedTransaction, decodeRecordBatches } from "../../src/kafka/record-batches.ts";

/**
 * Our record-batch decoder against kafkajs's, on the same bytes, which kafkajs's own encoder writes:
 * kafkajs decodes them as its consumer does (the Fetch response's batch decoder, then its Batch,
 * which drops records before the fetched offset, aborted transactions and control records), and
 * both must hand over the same records in the same order. Each case also states the offsets it
 * expects, so a fault both decoders shared would still fail it.
 */

const kafkajsInternal = createRequire(import.meta.url);
const { RecordBatch } = kafkajsInternal("kafkajs/src/protocol/recordBatch/v0/index.js");
const Record = kafkajsInternal("kafkajs/src/protocol/recordBatch/record/v0/index.js");
const Encoder = kafkajsInternal("kafkajs/src/protocol/encoder.js");
const Decoder = kafkajsInternal("kafkajs/src/protocol/decoder.js");
const Long = kafkajsInternal("kafkajs/src/utils/long.js");
const crc32C = kafkajsInternal("kafkajs/src/protocol/recordBatch/crc32C/index.js");
const decodeMessages = kafkajsInternal("kafkajs/src/protocol/requests/fetch/v4/decodeMessages.js");
const Batch = kafkajsInternal("kafkajs/src/consumer/batch.js");

interface Plain {
  offset: number;
  key: string | null;
  value: string | null;
}

interface BatchSpec {
  base: number;
  records: Array<{ key: Buffer | null; value: Buffer | null; headers?: Record<string, string> }>;
  compression?: CompressionTypes;
  producerId?: number;
  transactional?: boolean;
}

async function batchBytes(spec: BatchSpec): Promise<Buffer> {
  const now = 1_700_000_000_000;
  const encoder = await RecordBatch({
    compression: spec.compression ?? CompressionTypes.None,
    firstOffset: Long.fromNumber(spec.base),
    firstTimestamp: now,
    maxTimestamp: now + spec.records.length,
    lastOffsetDelta: spec.records.length - 1,
    transactional: spec.transactional ?? false,
    producerId: Long.fromNumber(spec.producerId ?? -1),
    records: spec.records.map((r, i) =>
      Record({ offsetDelta: i, timestampDelta: i, key: r.key, value: r.value, headers: r.headers ?? {} }),
    ),
  });
  return encoder.buffer;
}

/**
 * A transaction marker of `producerId` at `offset`. kafkajs's encoder writes no control batches:
 * its batch is made with a record whose key is the marker's (version 0, then the type: 0 abort,
 * 1 commit) and value the marker's (version 0, coordinator epoch), then the attributes' control bit
 * (0x20) is set and the CRC written again, as a broker writes a marker.
 */
async function markerBytes(offset: number, producerId: number, type: "abort" | "commit"): Promise<Buffer> {
  const key = new Encoder().writeInt16(0).writeInt16(type === "abort" ? 0 : 1).buffer;
  const value = new Encoder().writeInt16(0).writeInt32(0).buffer;
  const bytes = Buffer.from(
    await batchBytes({ base: offset, records: [{ key, value }], producerId, transactional: true }),
  );
  const ATTRIBUTES = 21;
  const CRC = 17;
  bytes.writeInt16BE(bytes.readInt16BE(ATTRIBUTES) | 0x20, ATTRIBUTES);
  bytes.writeUInt32BE(crc32C(bytes.subarray(ATTRIBUTES)), CRC);
  return bytes;
}

/** What kafkajs's consumer hands to eachBatch for these fetched bytes. */
async function kafkajsRecords(bytes: Buffer, from: number, aborted: AbortedTransaction[]): Promise<Plain[]> {
  const sized = new Encoder().writeInt32(bytes.length).writeBuffer(bytes).buffer;
  const messages = await decodeMessages(new Decoder(sized));
  const batch = new Batch("t", String(from), {
    partition: 0,
    highWatermark: "0",
    messages,
    abortedTransactions: aborted.map((a) => ({
      producerId: String(a.producerId),
      firstOffset: String(a.firstOffset),
    })),
  });
  return batch.messages.map((m: { offset: string; key: Buffer | null; value: Buffer | null }) => ({
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
    const abortKey = new Encoder().writeInt16(0).writeInt16(0).buffer;
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
      new Encoder()
        .writeInt32(id)
        .writeInt16(code)
        .writeInt64(100)
        .writeInt64(90)
        .writeInt64(0)
        .writeArray(aborted.map(([p, o]) => new Encoder().writeInt64(p).writeInt64(o)))
        .writeInt32(-1)
        .writeBytes(bytes);
    const raw = new Encoder()
      .writeInt32(0)
      .writeInt16(0)
      .writeInt32(0)
      .writeArray([
        new Encoder()
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
