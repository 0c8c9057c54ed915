import { createRequire } from "node:module";
import { setTimeout as sleep } from "node:timers/promises";
import type { KafkaClient } from "./client.ts";
import { type AbortedTransaction, type BatchRecord, decodeRecordBatches } from "./record-batches.ts";
import { DEFAULT_FETCH, type ReadRecord, type ReadTopicOptions } from "./topic-reader.ts";
import { stableEndOffsets } from "./topics.ts";

/**
 * readTopic's contract (committed records of some partitions, from given offsets to the stable ends)
 * without a consumer: Fetch requests sent straight to the partitions' leaders over kafkajs's own
 * connections, and their record batches decoded by record-batches.ts instead of kafkajs's decoder.
 * No group is joined (nothing is committed, and the partitions are named), so it also saves the
 * group's join and sync.
 *
 * It reaches into kafkajs's internals (the client's cluster factory, the v11 Fetch request encoder,
 * the protocol's error codes), which kafkajs 2.2.4 has had since 2.0; the package is pinned by the
 * lockfile and patched (patches/), so a change there is seen.
 */

const kafkajsInternal = createRequire(import.meta.url);
/** Fetch v11 (Kafka 2.3+): read_committed, aborted transaction lists, and the broker's KIP-74 size rules. */
const FETCH_VERSION = 11;
const FETCH_API_KEY = 1;
const READ_COMMITTED = 1;

interface ProtocolRequest {
  apiKey: number;
  apiVersion: number;
  apiName: string;
  encode(): Promise<unknown>;
}
interface Broker {
  versions: Record<number, { minVersion: number; maxVersion: number }> | null;
  connectionPool: {
    send(r: {
      request: ProtocolRequest;
      response: { decode(raw: Buffer): Promise<Buffer>; parse(raw: Buffer): Promise<Buffer> };
    }): Promise<Buffer>;
  };
}
interface Cluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  addTargetTopic(topic: string): Promise<void>;
  refreshMetadata(): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(where: { nodeId: string }): Promise<Broker>;
}
type FetchRequest = (args: {
  replicaId: number;
  maxWaitTime: number;
  minBytes: number;
  maxBytes: number;
  isolationLevel: number;
  topics: Array<{
    topic: string;
    partitions: Array<{ partition: number; fetchOffset: string; maxBytes: number }>;
  }>;
}) => ProtocolRequest;
const fetchRequest: FetchRequest = kafkajsInternal("kafkajs/src/protocol/requests/fetch/v11/request.js");
const { createErrorFromCode } = kafkajsInternal("kafkajs/src/protocol/error.js") as {
  createErrorFromCode(code: number): Error & { retriable: boolean };
};

/** The client's factory of clusters (a Kafka client makes one per producer, consumer or admin). */
function clusterOf(kafka: KafkaClient): Cluster {
  const key = Object.getOwnPropertySymbols(kafka as object).find(
    (s) => s.description === "private:Kafka:createCluster",
  );
  const create = key && (kafka as unknown as Record<symbol, unknown>)[key];
  if (typeof create !== "function")
    throw new Error("this kafkajs client has no cluster factory (kafkajs 2.x expected)");
  return create({ allowAutoTopicCreation: false, isolationLevel: READ_COMMITTED }) as Cluster;
}

/** Retries of a fetch that failed on a retriable error (a leader change, a lost connection) before giving up. */
const RETRIES = 8;

/** One partition's records of a fetch, decoded, and where its next fetch starts (null: no progress). */
interface Fetched {
  partition: number;
  records: ReadRecord[];
  next: number | null;
}

/**
 * Reads committed records of the given partitions from their start offsets up to the last stable
 * offset as it was when the read began (or `until`), calling onBatch once per fetched partition's
 * records, in offset order and never concurrently; returns the offsets where it stopped.
 *
 * The next fetch is sent before the records of the last one are handed over, so the broker's
 * answer travels while the caller folds (a consumer fetches only once its batches are processed).
 */
export async function readTopicBatches(
  kafka: KafkaClient,
  opts: ReadTopicOptions,
): Promise<Map<number, bigint>> {
  const ends = opts.until ?? (await stableEndOffsets(kafka, opts.topic));
  const position = new Map<number, number>();
  const end = new Map<number, number>();
  for (const [partition, start] of opts.from) {
    position.set(partition, Number(start));
    end.set(partition, Number(ends.get(partition) ?? 0n));
  }
  const pending = () => [...position].filter(([p, at]) => at < (end.get(p) ?? 0)).map(([p]) => p);
  const sizes = opts.fetch ?? DEFAULT_FETCH;
  const cluster = clusterOf(kafka);
  // Rotated every fetch: the broker gives its whole size to the first partitions of a request (KIP-74).
  let turn = 0;
  const round = (left: number[]) => {
    const fetching = fetchRound(cluster, opts.topic, left, new Map(position), end, sizes, turn++);
    // Awaited on the next turn; until then a failure must not count as unhandled.
    fetching.catch(() => {});
    return fetching;
  };
  let failures = 0;
  try {
    if (pending().length === 0) return opts.from;
    await cluster.connect();
    await cluster.addTargetTopic(opts.topic);
    let inflight: Promise<Fetched[]> | null = round(pending());
    while (inflight) {
      let fetched: Fetched[];
      try {
        fetched = await inflight;
        failures = 0;
      } catch (error) {
        if (!(error as { retriable?: boolean }).retriable || ++failures > RETRIES) throw error;
        await sleep(100 * 2 ** Math.min(failures, 5), undefined, opts.signal ? { signal: opts.signal } : {});
        await cluster.refreshMetadata();
        inflight = round(pending());
        continue;
      }
      for (const f of fetched) if (f.next !== null) position.set(f.partition, f.next);
      opts.signal?.throwIfAborted();
      const left = pending();
      inflight = left.length > 0 ? round(left) : null;
      for (const f of fetched) {
        if (f.records.length > 0) await opts.onBatch(f.records);
        if (f.next !== null) opts.onProgress?.(f.partition, BigInt(f.next));
      }
    }
    return new Map([...position].map(([p, at]) => [p, BigInt(at)]));
  } finally {
    await cluster.disconnect().catch(() => {});
  }
}

/** One fetch from each leader of the partitions left, from `position`, decoded; records past `end` dropped. */
async function fetchRound(
  cluster: Cluster,
  topic: string,
  left: number[],
  position: Map<number, number>,
  end: Map<number, number>,
  sizes: { maxBytesPerPartition: number; maxBytes: number },
  turn: number,
): Promise<Fetched[]> {
  const out: Fetched[] = [];
  for (const [nodeId, partitions] of Object.entries(cluster.findLeaderForPartitions(topic, left))) {
    const broker = await cluster.findBroker({ nodeId });
    for (const part of await fetchFrom(broker, topic, rotate(partitions, turn), position, sizes)) {
      if (part.errorCode !== 0) throw createErrorFromCode(part.errorCode);
      const from = position.get(part.partition) as number;
      const stop = end.get(part.partition) as number;
      const { records, next } = await decodeRecordBatches(part.records, from, part.aborted, part.partition);
      // Records written after the read began are not the caller's.
      let kept = records.length;
      while (kept > 0 && (records[kept - 1] as BatchRecord).at >= stop) kept--;
      records.length = kept;
      out.push({
        partition: part.partition,
        records,
        next: next !== null && next > from ? Math.min(next, stop) : null,
      });
    }
  }
  return out;
}

function rotate<T>(items: T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

interface FetchedPartition {
  partition: number;
  errorCode: number;
  aborted: AbortedTransaction[];
  records: Buffer;
}

async function fetchFrom(
  broker: Broker,
  topic: string,
  partitions: number[],
  position: Map<number, number>,
  sizes: { maxBytesPerPartition: number; maxBytes: number },
): Promise<FetchedPartition[]> {
  const supported = broker.versions?.[FETCH_API_KEY];
  if (supported && supported.maxVersion < FETCH_VERSION) {
    throw new Error(
      `the broker's Fetch is at most v${supported.maxVersion}; the batch reader sends v${FETCH_VERSION}`,
    );
  }
  const request = fetchRequest({
    replicaId: -1,
    // The broker answers at once when it has data, and waits this long when a partition is at its end.
    maxWaitTime: 100,
    minBytes: 1,
    maxBytes: sizes.maxBytes,
    isolationLevel: READ_COMMITTED,
    topics: [
      {
        topic,
        partitions: partitions.map((partition) => ({
          partition,
          fetchOffset: String(position.get(partition)),
          maxBytes: sizes.maxBytesPerPartition,
        })),
      },
    ],
  });
  const raw = await broker.connectionPool.send({
    request,
    response: { decode: async (r) => r, parse: async (r) => r },
  });
  return parseFetchResponse(raw);
}

/**
 * The partitions of a v11 Fetch response: throttle_time int32, error_code int16, session_id int32,
 * then per topic its name and per partition: partition int32, error_code int16, high_watermark,
 * last_stable_offset and log_start_offset int64, aborted_transactions [producer_id int64,
 * first_offset int64], preferred_read_replica int32, records (int32-sized bytes).
 */
export function parseFetchResponse(raw: Buffer): FetchedPartition[] {
  let pos = 4;
  const errorCode = raw.readInt16BE(pos);
  if (errorCode !== 0) throw createErrorFromCode(errorCode);
  pos += 2 + 4;
  const out: FetchedPartition[] = [];
  const topics = raw.readInt32BE(pos);
  pos += 4;
  for (let t = 0; t < topics; t++) {
    pos += 2 + raw.readInt16BE(pos);
    const partitions = raw.readInt32BE(pos);
    pos += 4;
    for (let i = 0; i < partitions; i++) {
      const partition = raw.readInt32BE(pos);
      const code = raw.readInt16BE(pos + 4);
      pos += 4 + 2 + 8 * 3;
      const abortedCount = raw.readInt32BE(pos);
      pos += 4;
      const aborted: AbortedTransaction[] = [];
      for (let a = 0; a < abortedCount; a++) {
        aborted.push({ producerId: raw.readBigInt64BE(pos), firstOffset: raw.readBigInt64BE(pos + 8) });
        pos += 16;
      }
      pos += 4; // preferred_read_replica
      const size = raw.readInt32BE(pos);
      pos += 4;
      const records = size > 0 ? raw.subarray(pos, pos + size) : Buffer.alloc(0);
      pos += Math.max(0, size);
      out.push({ partition, errorCode: code, aborted, records });
    }
  }
  return out;
}
