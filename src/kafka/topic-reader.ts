import { randomUUID } from "node:crypto";
import { AssignerProtocol, type IHeaders, type KafkaMessage, type PartitionAssigner } from "kafkajs";
import { retry } from "../support/retry.ts";
import { type KafkaClient, kafkajs } from "./client.ts";
import { stableEndOffsets } from "./topics.ts";

export interface ReadRecord {
  readonly partition: number;
  readonly offset: bigint;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  /** The record's timestamp (its producer's send time, unix ms), where the reader hands it over. */
  readonly timestamp?: number;
  /** The record's headers, where the reader hands them over (a parked record keeps them). */
  readonly headers?: IHeaders | undefined;
}

/** A consumed kafkajs message as a ReadRecord of `partition`, headers kept (a parked record keeps them). */
export function readRecordOf(partition: number, m: KafkaMessage): ReadRecord {
  return {
    partition,
    offset: BigInt(m.offset),
    key: m.key,
    value: m.value,
    ...(m.headers && { headers: m.headers }),
  };
}

export interface ReadTopicOptions {
  topic: string;
  /** Partitions to read and the offset to start each at; partitions not listed are not read. */
  from: Map<number, bigint>;
  /**
   * Where to stop in each partition (exclusive), for a caller that has read the last stable offsets
   * already (a replay reads them once for all its threads and its progress). Default: read them now.
   */
  until?: Map<number, bigint>;
  /** Called once per fetched batch of one partition, in offset order. */
  onBatch: (records: ReadRecord[]) => Promise<void> | void;
  /**
   * Smaller fetches for a reader holding much in memory (a replay), default DEFAULT_FETCH. Any size
   * makes progress: the broker always sends the first partition's next batch whole, and a
   * partition that reached its end is paused, so every partition comes first in its turn.
   */
  fetch?: FetchSizes;
  /** Called with the offset reached in a partition after each batch (also for batches of control records). */
  onProgress?: (partition: number, nextOffset: bigint) => void;
  signal?: AbortSignal;
}

/** How much one fetch may bring back: per partition, and in all. */
export interface FetchSizes {
  maxBytesPerPartition: number;
  maxBytes: number;
}

/**
 * What a reader fetches unless told otherwise: more than any record batch (the broker's default
 * limit is 1 MiB), so every partition's next batch fits whatever its place in the request.
 */
export const DEFAULT_FETCH: FetchSizes = {
  maxBytesPerPartition: 16 * 1024 * 1024,
  maxBytes: 64 * 1024 * 1024,
};

/**
 * Reads committed records of the given partitions from their start offsets up to the last stable
 * offset as it was when the read began, then returns the offsets where it stopped.
 *
 * kafkajs has no manual partition assignment, so this joins a fresh, private consumer group whose
 * assigner hands exactly the requested partitions to its one member; it commits nothing. It is the
 * building block of actor restore and of replay.
 */
export async function readTopic(kafka: KafkaClient, opts: ReadTopicOptions): Promise<Map<number, bigint>> {
  const ends = opts.until ?? (await stableEndOffsets(kafka, opts.topic));
  const position = new Map<number, bigint>();
  const pending = new Set<number>();
  for (const [partition, start] of opts.from) {
    position.set(partition, start);
    const end = ends.get(partition) ?? 0n;
    if (start < end) pending.add(partition);
  }
  if (pending.size === 0) return position;

  const wanted = [...pending].sort((a, b) => a - b);
  const consumer = kafkajs(kafka).consumer({
    groupId: `reader.${opts.topic}.${randomUUID()}`,
    partitionAssigners: [onlyPartitions(opts.topic, wanted)],
    ...(opts.fetch ?? DEFAULT_FETCH),
    maxWaitTimeInMs: 100,
    sessionTimeout: 30_000,
    heartbeatInterval: 3000,
  });

  let finish: (error?: unknown) => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    finish = (error) => (error === undefined ? resolve() : reject(error));
  });
  const advance = (partition: number, next: bigint) => {
    position.set(partition, next);
    opts.onProgress?.(partition, next);
    if (next >= (ends.get(partition) ?? 0n)) {
      pending.delete(partition);
      // kafkajs lists a request's partitions in one fixed order; a batch larger than the
      // per-partition size is only sent to the first one with data, so a finished partition
      // must leave the requests for the others to reach that place.
      consumer.pause([{ topic: opts.topic, partitions: [partition] }]);
      if (pending.size === 0) finish();
    }
  };
  const onAbort = () => finish(opts.signal?.reason ?? new Error("aborted"));
  opts.signal?.addEventListener("abort", onAbort, { once: true });

  try {
    await consumer.connect();
    await consumer.subscribe({ topic: opts.topic, fromBeginning: true });
    // A batch holding only transaction markers or aborted records never reaches eachBatch; this
    // event still reports how far the fetch got, so the reader can tell it reached the end.
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      if (!pending.has(payload.partition)) return;
      const next = BigInt(payload.lastOffset) + 1n;
      if (next > (position.get(payload.partition) ?? 0n)) advance(payload.partition, next);
    });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: true,
      eachBatch: async ({ batch }) => {
        if (!pending.has(batch.partition)) return;
        const end = ends.get(batch.partition) ?? 0n;
        const last = BigInt(batch.lastOffset()) + 1n;
        const records: ReadRecord[] = [];
        for (const m of batch.messages) {
          // Only a batch reaching past the end needs each offset: records written after the read
          // began are not ours to report.
          if (last > end && BigInt(m.offset) >= end) break;
          records.push(new FetchedRecord(batch.partition, m));
        }
        if (records.length > 0) await opts.onBatch(records);
        advance(batch.partition, last < end ? last : end);
      },
    });
    for (const partition of wanted) {
      // kafkajs refuses a seek while its consumer group is not (or no longer) set up, which `run`
      // can leave for a moment when its first join fails and the runner restarts (seen once in a
      // loaded CI run: "Consumer group was not initialized"): the seek is tried again for 2.5-5 s
      // (100 tries, 25-50 ms apart with the jitter).
      await retry(
        async () =>
          consumer.seek({ topic: opts.topic, partition, offset: String(position.get(partition) ?? 0n) }),
        { attempts: 100, baseMs: 50, maxMs: 50, isRetryable: groupNotReady },
      );
    }
    consumer.on(consumer.events.CRASH, ({ payload }) => finish(payload.error));
    await done;
    return position;
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    await consumer.disconnect().catch(() => {});
  }
}

/** A record as kafkajs hands it over; its offset is parsed only when asked for (a replay never asks). */
class FetchedRecord implements ReadRecord {
  constructor(
    readonly partition: number,
    private readonly message: KafkaMessage,
  ) {}
  get offset(): bigint {
    return BigInt(this.message.offset);
  }
  get key(): Buffer | null {
    return this.message.key;
  }
  get value(): Buffer | null {
    return this.message.value;
  }
  get timestamp(): number {
    return Number(this.message.timestamp);
  }
  get headers(): IHeaders | undefined {
    return this.message.headers;
  }
}

function onlyPartitions(topic: string, partitions: number[]): PartitionAssigner {
  return () => ({
    name: "OnlyPartitionsAssigner",
    version: 1,
    async assign({ members }) {
      return members.map((m, i) => ({
        memberId: m.memberId,
        memberAssignment: AssignerProtocol.MemberAssignment.encode({
          version: 1,
          assignment: i === 0 ? { [topic]: partitions } : {},
          userData: Buffer.alloc(0),
        }),
      }));
    },
    protocol({ topics }) {
      return {
        name: "OnlyPartitionsAssigner",
        metadata: AssignerProtocol.MemberMetadata.encode({ version: 1, topics, userData: Buffer.alloc(0) }),
      };
    },
  });
}

const groupNotReady = (err: unknown): boolean => err instanceof Error && /not initialized/i.test(err.message);
