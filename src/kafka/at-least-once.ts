import type { Consumer, Producer } from "kafkajs";
import {
  groupTiming,
  heartbeatingWhile,
  isProducerStateLost,
  type KafkaClient,
  kafkajs,
  superviseConsumer,
} from "./client.ts";
import { messageBytes, requestChunks } from "./request-size.ts";
import type { ReadRecord } from "./topic-reader.ts";

export interface BatchConsumerOptions {
  groupId: string;
  topics: string[];
  /** Where a group with no committed offset starts: the beginning, or only new records. */
  fromBeginning: boolean;
  /** Handles one batch of one partition; offsets are committed after it resolves. Must be idempotent. */
  onBatch: (topic: string, partition: number, records: ReadRecord[]) => Promise<void>;
  concurrency?: number;
  /** The consumer crashed on an error kafkajs does not restart from; it is started again after a backoff. */
  onCrash?: (error: Error) => void;
  /** Called after the member's first fetch: from then on it sees every new record. */
  onReady?: () => void;
  /** false: never commit offsets (a private, per-process group that always starts at the end). */
  commit?: boolean;
  /**
   * For a group that commits nothing (`commit: false`): where a partition starts on this member's
   * first join, when not at `fromBeginning`'s end (undefined: there). On every later join the
   * partition goes on from the offset this member reached. kafkajs forgets the positions at each
   * join and starts an uncommitted group at the end again, so a rejoin (a broker restart, a
   * rebalance, a restart after a crash) silently skipped every record written meanwhile.
   */
  startAt?: (topic: string, partition: number) => bigint | undefined;
  /**
   * The offset the consumer reached in a partition, after each batch handled and after each batch
   * of only transaction markers or aborted records (which never reaches `onBatch`).
   */
  onProgress?: (topic: string, partition: number, nextOffset: bigint) => void;
  /**
   * How long a fetch may wait on the broker for more records (default 50 ms, answered at the first
   * record). Set, the broker holds each fetch until this long has passed or FETCH_MIN_BYTES are
   * there: fuller batches and fewer fetches for a consumer that nobody waits on.
   */
  fetchWaitMs?: number;
}

/** What a fetch with `fetchWaitMs` waits for besides the time: a catch-up's fetch is answered at once. */
const FETCH_MIN_BYTES = 1024 * 1024;

export interface BatchConsumer {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A read_committed consumer whose handler is idempotent, so committing after the handler (at least
 * once) is enough: projections and fan-out use it, the transactional actors do not.
 */
export function createBatchConsumer(kafka: KafkaClient, opts: BatchConsumerOptions): BatchConsumer {
  const consumer: Consumer = kafkajs(kafka).consumer({
    groupId: opts.groupId,
    readUncommitted: false,
    ...(opts.fetchWaitMs
      ? { maxWaitTimeInMs: opts.fetchWaitMs, minBytes: FETCH_MIN_BYTES }
      : { maxWaitTimeInMs: 50 }),
    maxBytesPerPartition: 4 * 1024 * 1024,
    ...groupTiming(kafka),
  });
  let stopped = false;
  let ready = false;
  consumer.on(consumer.events.FETCH, () => {
    if (ready) return;
    ready = true;
    opts.onReady?.();
  });
  const resume = opts.commit === false ? createResumePositions(consumer, opts.startAt) : null;
  const progress = (topic: string, partition: number, next: bigint) => {
    resume?.reached(topic, partition, next);
    opts.onProgress?.(topic, partition, next);
  };
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    // A batch with records reports its progress from eachBatch, once its handler is done.
    if (payload.batchSize === 0) progress(payload.topic, payload.partition, BigInt(payload.lastOffset) + 1n);
  });
  const run = async () => {
    await consumer.connect();
    await consumer.subscribe({ topics: opts.topics, fromBeginning: opts.fromBeginning });
    await consumer.run({
      autoCommit: opts.commit ?? true,
      autoCommitInterval: 1000,
      eachBatchAutoResolve: true,
      partitionsConsumedConcurrently: opts.concurrency ?? 4,
      eachBatch: async ({ batch, isStale, isRunning, heartbeat }) => {
        if (!isRunning() || isStale() || batch.messages.length === 0) return;
        const records = batch.messages.map((m) => ({
          partition: batch.partition,
          offset: BigInt(m.offset),
          key: m.key,
          value: m.value,
        }));
        await heartbeatingWhile(kafka, heartbeat, () => opts.onBatch(batch.topic, batch.partition, records));
        progress(batch.topic, batch.partition, BigInt(batch.lastOffset()) + 1n);
      },
    });
  };
  superviseConsumer(consumer, { onCrash: opts.onCrash, start: run, stopped: () => stopped });
  return {
    start: run,
    async stop() {
      stopped = true;
      await consumer.disconnect();
    },
  };
}

/**
 * The positions of a member of a group that commits nothing, put back at each join: the offset it
 * reached in each partition, or before its first batch there `startAt`'s. GROUP_JOIN is emitted
 * after the assignment and before the first fetch of the new generation, and a seek made then is
 * what that fetch starts from.
 */
function createResumePositions(
  consumer: Consumer,
  startAt: ((topic: string, partition: number) => bigint | undefined) | undefined,
) {
  const positions = new Map<string, bigint>();
  const keyOf = (topic: string, partition: number) => `${topic}\u0000${partition}`;
  consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
    for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
      for (const partition of partitions) {
        const offset = positions.get(keyOf(topic, partition)) ?? startAt?.(topic, partition);
        if (offset !== undefined) consumer.seek({ topic, partition, offset: offset.toString() });
      }
    }
  });
  return {
    reached(topic: string, partition: number, next: bigint) {
      const key = keyOf(topic, partition);
      if (next > (positions.get(key) ?? -1n)) positions.set(key, next);
    },
  };
}

export interface PlainProducer {
  send(topic: string, messages: Array<{ key: string; value: Buffer; partition?: number }>): Promise<void>;
  connect(): Promise<void>;
  disconnect(): Promise<void>;
}

/**
 * An idempotent (not transactional) producer: no duplicates from its own retries, acks from all
 * replicas. It keeps one request in flight, so sends made while one is in flight wait, and are then
 * written together in the next request (group commit): under 50 concurrent POSTs each command waits
 * for about one request instead of queueing behind 49, each a round trip. A failed request fails
 * every send it carried; each caller retries its own (at least once).
 */
export function createPlainProducer(kafka: KafkaClient): PlainProducer {
  const make = (): Producer => kafkajs(kafka).producer({ idempotent: true, maxInFlightRequests: 1 });
  let producer = make();
  const sendChunk = async (topic: string, messages: Messages) => {
    try {
      await producer.send({ topic, messages, acks: -1 });
    } catch (err) {
      if (!isProducerStateLost(err)) throw err;
      // The broker came back without this producer's sequence and refused the batch: a new
      // producer (a new id, its sequence from zero) sends it once more. Without this every later
      // send failed the same way (a CI run's gateway answered 257 writes 500 after a broker
      // restart). A batch resent this way is a command the session core knows by its id.
      const stale = producer;
      producer = make();
      await stale.disconnect().catch(() => {});
      await producer.connect();
      await producer.send({ topic, messages, acks: -1 });
    }
  };
  const send = coalescingSender(async (byTopic) => {
    for (const [topic, messages] of byTopic) {
      // A projector batch of thousands of changed sessions is more than the broker takes at once.
      for (const chunk of requestChunks(messages, messageBytes)) await sendChunk(topic, chunk);
    }
  });
  return {
    connect: () => producer.connect(),
    disconnect: () => producer.disconnect(),
    send,
  };
}

type Messages = Array<{ key: string; value: Buffer; partition?: number }>;

/**
 * Sends at once when nothing is in flight; otherwise queues, and sends everything queued in one go
 * (per topic, in the order of the calls) once the request in flight is done. Each call resolves when
 * the request that carried its messages succeeded, and rejects with its error.
 */
export function coalescingSender(
  write: (byTopic: Map<string, Messages>) => Promise<void>,
): (topic: string, messages: Messages) => Promise<void> {
  type Failure = { error: unknown } | null;
  let queued: Array<{ topic: string; messages: Messages; done: (failure: Failure) => void }> = [];
  let writing = false;
  const drain = async () => {
    writing = true;
    while (queued.length > 0) {
      const taken = queued;
      queued = [];
      const byTopic = new Map<string, Messages>();
      for (const { topic, messages } of taken) {
        const list = byTopic.get(topic);
        if (list) list.push(...messages);
        else byTopic.set(topic, [...messages]);
      }
      let failure: Failure = null;
      try {
        await write(byTopic);
      } catch (error) {
        failure = { error };
      }
      for (const t of taken) t.done(failure);
    }
    writing = false;
  };
  return (topic, messages) =>
    new Promise<void>((resolve, reject) => {
      if (messages.length === 0) return resolve();
      queued.push({ topic, messages, done: (failure) => (failure ? reject(failure.error) : resolve()) });
      if (!writing) void drain();
    });
}
