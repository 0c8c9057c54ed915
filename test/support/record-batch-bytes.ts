import { createRequire } from "node:module";
import { CompressionTypes } from "kafkajs";
import type { AbortedTransaction } from "../../src/kafka/record-batches.ts";

/**
 * Record batches as a broker would return them, written by kafkajs's own encoder, and kafkajs's own
 * consumer-side decoding of them: the reference our decoder (src/kafka/record-batches.ts) is held
 * to, in its unit test and its benchmark.
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

export interface BatchSpec {
  base: number;
  records: Array<{ key: Buffer | null; value: Buffer | null; headers?: Record<string, string> }>;
  compression?: CompressionTypes;
  producerId?: number;
  transactional?: boolean;
}

export async function batchBytes(spec: BatchSpec): Promise<Buffer> {
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

/** A control record's key: version 0, then the type (0 abort, 1 commit). */
export const markerKey = (type: "abort" | "commit"): Buffer =>
  new Encoder().writeInt16(0).writeInt16(type === "abort" ? 0 : 1).buffer;

/**
 * A transaction marker of `producerId` at `offset`. kafkajs's encoder writes no control batches:
 * its batch is made with a record whose key is the marker's and value the marker's (version 0,
 * coordinator epoch), then the attributes' control bit (0x20) is set and the CRC written again, as
 * a broker writes a marker.
 */
export async function markerBytes(
  offset: number,
  producerId: number,
  type: "abort" | "commit",
): Promise<Buffer> {
  const value = new Encoder().writeInt16(0).writeInt32(0).buffer;
  const bytes = Buffer.from(
    await batchBytes({
      base: offset,
      records: [{ key: markerKey(type), value }],
      producerId,
      transactional: true,
    }),
  );
  const ATTRIBUTES = 21;
  const CRC = 17;
  bytes.writeInt16BE(bytes.readInt16BE(ATTRIBUTES) | 0x20, ATTRIBUTES);
  bytes.writeUInt32BE(crc32C(bytes.subarray(ATTRIBUTES)), CRC);
  return bytes;
}

export interface KafkajsMessage {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
}

/**
 * What kafkajs's consumer hands to eachBatch for one partition's fetched bytes: its Fetch response
 * decoder's messages, then its Batch (records before the fetched offset, aborted transactions and
 * control records dropped).
 */
export async function kafkajsMessages(
  bytes: Buffer,
  from: number,
  aborted: readonly AbortedTransaction[] = [],
): Promise<KafkajsMessage[]> {
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
  return batch.messages;
}

/** kafkajs's encoder of the protocol's primitives, for a test that writes a response by hand. */
export interface ProtocolEncoder {
  writeInt16(v: number): ProtocolEncoder;
  writeInt32(v: number): ProtocolEncoder;
  writeInt64(v: number): ProtocolEncoder;
  writeString(v: string): ProtocolEncoder;
  writeBytes(v: Buffer | null): ProtocolEncoder;
  writeArray(v: ProtocolEncoder[]): ProtocolEncoder;
  buffer: Buffer;
}

export const newEncoder = (): ProtocolEncoder => new Encoder();
