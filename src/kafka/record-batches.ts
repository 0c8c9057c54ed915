import kafkajsPackage from "kafkajs";
import type { ReadRecord } from "./topic-reader.ts";

// kafkajs is CommonJS and node's named-export detection misses CompressionCodecs.
const { CompressionCodecs } = kafkajsPackage;

/**
 * A decoder of Kafka's record batches (message format v2, magic 2) for readers that need only each
 * record's offset, key and value: a replay. kafkajs builds a message object per record with its
 * offset and timestamp parsed into 64-bit values and formatted back to strings, and headers turned
 * into an object; at a replay's rate that is a third of the read's CPU (docs/PERFORMANCE.md,
 * "Replay"). Here a record is three fields, its key and value views into the fetched bytes.
 *
 * Read-committed semantics are the caller's to ask for (the fetch's isolation level) and this
 * decoder's to finish: the broker returns the records of aborted transactions too, with the list of
 * aborted transactions that overlap the fetched range, and this decoder drops them.
 */

/** One record of a fetched batch: its offset kept as a number, made a bigint only when asked for. */
export class BatchRecord implements ReadRecord {
  constructor(
    readonly partition: number,
    /** Its offset (a journal's offsets stay far below 2^53). */
    readonly at: number,
    readonly key: Buffer | null,
    readonly value: Buffer | null,
  ) {}
  get offset(): bigint {
    return BigInt(this.at);
  }
}

/** An aborted transaction the fetch response lists for the partition: its producer and first offset. */
export interface AbortedTransaction {
  producerId: bigint;
  firstOffset: bigint;
}

export interface DecodedBatches {
  /** The committed data records at or after `from`, in offset order. */
  records: BatchRecord[];
  /**
   * The offset after the last whole batch (control batches and aborted ones included): where the
   * next fetch starts. null when the bytes hold no whole batch (a fetch cut short by its size).
   */
  next: number | null;
}

/** Byte positions in a batch's header (the v2 record batch layout). */
const HEADER = {
  baseOffset: 0,
  batchLength: 8,
  magic: 16,
  attributes: 21,
  lastOffsetDelta: 23,
  producerId: 43,
  recordCount: 57,
  records: 61,
} as const;
/** baseOffset and batchLength are not counted in batchLength. */
const LOG_OVERHEAD = 12;
const ATTR_COMPRESSION = 0x07;
const ATTR_TRANSACTIONAL = 0x10;
const ATTR_CONTROL = 0x20;
/** A control record's key is version (int16) then type (int16): type 0 ends a transaction by aborting it. */
const CONTROL_TYPE_ABORT = 0;

/**
 * Decodes the record batches of one partition's fetched bytes. `from` is the offset fetched: a
 * compressed batch comes back whole and may start before it, and its earlier records are dropped.
 * A batch cut off at the end of the bytes (the fetch's size limit) is left for the next fetch.
 */
export async function decodeRecordBatches(
  bytes: Buffer,
  from: number,
  aborted: readonly AbortedTransaction[] = [],
  /** The partition the bytes were fetched from, given to each record. */
  partition = 0,
): Promise<DecodedBatches> {
  const records: BatchRecord[] = [];
  // Aborted transactions in order of their first offset; each opens when a batch reaches it and
  // stays open for its producer until that producer's abort marker.
  const pending = [...aborted].sort((a, b) => (a.firstOffset < b.firstOffset ? -1 : 1));
  const open = new Set<bigint>();
  let next: number | null = null;
  let pos = 0;
  while (pos + HEADER.records <= bytes.length) {
    const size = LOG_OVERHEAD + bytes.readInt32BE(pos + HEADER.batchLength);
    if (pos + size > bytes.length) break;
    const magic = bytes.readInt8(pos + HEADER.magic);
    if (magic !== 2) throw new Error(`record batch with magic ${magic}: only format v2 (magic 2) is read`);
    const base = Number(bytes.readBigInt64BE(pos + HEADER.baseOffset));
    const attributes = bytes.readInt16BE(pos + HEADER.attributes);
    const last = base + bytes.readInt32BE(pos + HEADER.lastOffsetDelta);
    const batch = bytes.subarray(pos, pos + size);
    pos += size;
    next = last + 1;
    if (last < from) continue;

    const transactional = (attributes & ATTR_TRANSACTIONAL) !== 0;
    while (pending.length > 0 && (pending[0] as AbortedTransaction).firstOffset <= BigInt(last)) {
      open.add((pending.shift() as AbortedTransaction).producerId);
    }
    const producerId = transactional ? batch.readBigInt64BE(HEADER.producerId) : -1n;
    if ((attributes & ATTR_CONTROL) !== 0) {
      if (open.has(producerId) && (await controlType(batch, attributes)) === CONTROL_TYPE_ABORT) {
        open.delete(producerId);
      }
      continue;
    }
    if (transactional && open.has(producerId)) continue;

    const count = batch.readInt32BE(HEADER.recordCount);
    const body = await recordsOf(batch, attributes);
    readRecords(body, count, base, from, partition, records);
  }
  return { records, next };
}

/** The batch's records, decompressed with kafkajs's codec for its compression type when it has one. */
async function recordsOf(batch: Buffer, attributes: number): Promise<Buffer> {
  const body = batch.subarray(HEADER.records);
  const type = attributes & ATTR_COMPRESSION;
  if (type === 0) return body;
  const codec = (
    CompressionCodecs as Record<number, (() => { decompress(b: Buffer): Promise<Buffer> }) | undefined>
  )[type];
  if (!codec) throw new Error(`record batch compressed with codec ${type}, which kafkajs has no codec for`);
  return codec().decompress(body);
}

/** The type of a control batch's (single) record, from its key. */
async function controlType(batch: Buffer, attributes: number): Promise<number> {
  const found: BatchRecord[] = [];
  readRecords(await recordsOf(batch, attributes), 1, 0, 0, 0, found);
  const key = found[0]?.key;
  if (!key || key.length < 4) throw new Error("control record without a version and type key");
  return key.readInt16BE(2);
}

/**
 * Appends `count` records read from `body` to `out`, skipping those before `from`. Each record:
 * length, attributes, timestamp delta, offset delta, key, value, headers; lengths and deltas are
 * zigzag varints. Headers and timestamps are skipped: a replay reads neither.
 */
function readRecords(
  body: Buffer,
  count: number,
  base: number,
  from: number,
  partition: number,
  out: BatchRecord[],
): void {
  let pos = 0;
  for (let i = 0; i < count; i++) {
    let v = readVarint(body, pos);
    const end = cursor + v;
    pos = cursor + 1; // attributes: unused in v2
    pos = skipVarint(body, pos); // timestamp delta
    v = readVarint(body, pos);
    const offset = base + v;
    v = readVarint(body, cursor);
    let key: Buffer | null = null;
    if (v >= 0) {
      key = body.subarray(cursor, cursor + v);
      cursor += v;
    }
    v = readVarint(body, cursor);
    let value: Buffer | null = null;
    if (v >= 0) value = body.subarray(cursor, cursor + v);
    if (offset >= from) out.push(new BatchRecord(partition, offset, key, value));
    pos = end;
  }
  if (pos > body.length) throw new Error("record batch shorter than its records");
}

/** Where the last readVarint stopped (a module variable: no result object per varint). */
let cursor = 0;

/** A zigzag varint of at most 32 bits at `pos`; sets `cursor` after it. */
function readVarint(buf: Buffer, pos: number): number {
  let raw = 0;
  let shift = 0;
  let byte: number;
  do {
    if (shift > 28) throw new Error("varint longer than 5 bytes in a record");
    byte = buf[pos++] as number;
    raw |= (byte & 0x7f) << shift;
    shift += 7;
  } while (byte & 0x80);
  cursor = pos;
  return (raw >>> 1) ^ -(raw & 1);
}

/** Past a varint of any length (a 64-bit timestamp delta). */
function skipVarint(buf: Buffer, pos: number): number {
  while ((buf[pos++] as number) & 0x80) {
    if (pos > buf.length) throw new Error("varint runs past the end of a record");
  }
  return pos;
}
