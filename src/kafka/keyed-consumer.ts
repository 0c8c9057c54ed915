import type { Consumer } from "kafkajs";
import { TOPIC } from "../../topics/catalogue.ts";
import { isTerminal } from "../support/errors.ts";
import { createPlainProducer } from "./at-least-once.ts";
import { groupTiming, type KafkaClient, kafkajs, superviseConsumer } from "./client.ts";
import type { Codecs } from "./codecs.ts";
import { parkedMessage } from "./dead-letter.ts";
import { createOffsetTracker } from "./offset-tracker.ts";
import { type ReadRecord, readRecordOf } from "./topic-reader.ts";

export interface KeyedConsumerOptions {
  groupId: string;
  /** The dead-letter record's codec: a record that fails for good is parked with it. */
  codecs: Pick<Codecs, "deadLetter">;
  topic: string;
  /**
   * Works one record. Records of one key run one after another in offset order; different keys run
   * at the same time. Resolving means done: its offset may be committed. Rejecting with a terminal
   * error (src/support/errors.ts: a record that cannot be read, a command that can never be carried
   * out) parks the record on the dead-letter topic, and then it is done too. Rejecting otherwise (a
   * store that did not answer) has the record worked again after a backoff, for as long as the
   * consumer runs: its key waits behind it and no later record of the key is skipped. On shutdown
   * what is not done stays uncommitted, so the partition's next owner works it again.
   */
  handle?: (record: ReadRecord) => Promise<void>;
  /**
   * Instead of `handle`: works the records of one fetched batch of one partition together (their
   * keys' order kept: a partition's batches run one after another, in offset order). Up to
   * `maxInFlight` records per call. Resolving means all are done; rejecting otherwise has the batch
   * worked again after a backoff; a terminal error has its records worked one by one (each as a batch
   * of one), so only the record that fails for good is parked.
   */
  handleBatch?: (records: ReadRecord[]) => Promise<void>;
  /** Where records that fail for good are parked (default: the deadletter topic). */
  deadLetterTopic?: string;
  /** The first retry's delay (doubling up to `retryMaxMs`); 200 ms by default. */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Records being worked at once (all keys); fetching waits while this many are in flight. */
  maxInFlight: number;
  log: (level: "warn" | "error", msg: string, fields?: object) => void;
  onCrash?: (error: Error) => void;
}

export interface KeyedConsumer {
  start(): Promise<void>;
  /**
   * Stops fetching, waits for the records in flight to settle, commits what is done, disconnects
   * (leaving the group, so the partitions move at once). With `finishWithinMs` the records in flight
   * are first given that long to finish while this process is still the partitions' member, so what
   * they did is committed and nobody works them again; `onUnfinished` is told if some have not (the
   * owner then cuts them short: they are worked again by the next member).
   */
  stop(opts?: { finishWithinMs?: number; onUnfinished?: () => void }): Promise<void>;
  /** Records being worked now. */
  inFlight(): number;
}

/**
 * A consumer-group member that works records per key concurrently (a slow record of one session
 * does not hold up another's) and commits, per partition, only below the oldest record not yet
 * done: a crash re-delivers everything not finished, and nothing finished is lost.
 */
export function createKeyedConsumer(kafka: KafkaClient, opts: KeyedConsumerOptions): KeyedConsumer {
  if (!opts.handle === !opts.handleBatch)
    throw new Error("a keyed consumer takes handle or handleBatch, one of them");
  const consumer: Consumer = kafkajs(kafka).consumer({
    groupId: opts.groupId,
    readUncommitted: false,
    ...groupTiming(kafka),
    maxWaitTimeInMs: 50,
  });
  const tails = new Map<string, Promise<void>>();
  const offsets = createOffsetTracker();
  const inFlight = new Set<Promise<void>>();
  // Records in flight (a batch counts its records).
  let flying = 0;
  // Batches (one per partition, several at once) waiting for room.
  const waiting = new Set<() => void>();
  let stopping = false;
  // Stopping, but the records in flight may still finish: nothing new is taken.
  let draining = false;
  const retryBaseMs = opts.retryBaseMs ?? 200;
  const retryMaxMs = opts.retryMaxMs ?? 5000;
  const deadLetterTopic = opts.deadLetterTopic ?? TOPIC.deadLetter;
  const deadLetters = createPlainProducer(kafka);

  /**
   * Parks a record that failed for good. At least once, not in a transaction with the offset (this
   * consumer commits offsets itself): a crash between the two parks it again, never loses it.
   */
  async function park(record: ReadRecord, key: string, err: unknown): Promise<boolean> {
    try {
      await deadLetters.send(deadLetterTopic, [
        parkedMessage(opts.codecs.deadLetter, opts.groupId, opts.topic, record, err),
      ]);
      opts.log("error", `record failed for good: parked on ${deadLetterTopic}`, {
        key,
        partition: record.partition,
        offset: String(record.offset),
        err: err instanceof Error ? err.message : String(err),
      });
      return true;
    } catch (sendErr) {
      opts.log("warn", "could not park a record; working it again", {
        key,
        offset: String(record.offset),
        err: sendErr instanceof Error ? sendErr.message : String(sendErr),
      });
      return false;
    }
  }

  /**
   * The handler until it succeeds or fails for good (then the record is parked); any other failure
   * is retried (doubling delay) until the consumer stops.
   */
  async function handleUntilDone(
    record: ReadRecord,
    key: string,
    handle: (record: ReadRecord) => Promise<void>,
  ): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await handle(record);
      } catch (err) {
        if (stopping) throw err;
        if (isTerminal(err) && (await park(record, key, err))) return;
        const delayMs = Math.min(retryMaxMs, retryBaseMs * 2 ** attempt);
        opts.log("warn", "record failed; working it again", {
          key,
          offset: String(record.offset),
          attempt: attempt + 1,
          delayMs,
          err: err instanceof Error ? err.message : String(err),
        });
        await new Promise((r) => setTimeout(r, delayMs));
        if (stopping) throw err;
      }
    }
  }

  function commit(partition: number, offset: bigint | null): void {
    if (offset === null) return;
    consumer
      .commitOffsets([{ topic: opts.topic, partition, offset: offset.toString() }])
      // A rebalance took the partition: its new owner re-works what we did not commit (idempotent).
      .catch((err: Error) => opts.log("warn", "offset commit failed", { partition, err: err.message }));
  }

  /**
   * A batch until it is done: a failure is retried (doubling delay) until the consumer stops; a
   * terminal one has each record worked alone, so only the one that fails for good is parked.
   */
  async function batchUntilDone(
    handleBatch: (records: ReadRecord[]) => Promise<void>,
    records: ReadRecord[],
  ) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await handleBatch(records);
      } catch (err) {
        if (stopping) throw err;
        if (isTerminal(err)) {
          for (const r of records)
            await handleUntilDone(r, r.key?.toString() ?? "", (one) => handleBatch([one]));
          return;
        }
        const delayMs = Math.min(retryMaxMs, retryBaseMs * 2 ** attempt);
        opts.log("warn", "batch failed; working it again", {
          partition: records[0]?.partition,
          from: String(records[0]?.offset),
          records: records.length,
          attempt: attempt + 1,
          delayMs,
          err: err instanceof Error ? err.message : String(err),
        });
        await new Promise((r) => setTimeout(r, delayMs));
        if (stopping) throw err;
      }
    }
  }

  /**
   * Runs `work` after the previous work of `tail` (a key, or a partition for batches), and commits
   * the records' offsets once it is done.
   */
  function track(tail: string, partition: number, records: ReadRecord[], work: () => Promise<void>): void {
    for (const r of records) offsets.started(partition, r.offset);
    const chained = (tails.get(tail) ?? Promise.resolve()).then(work);
    tails.set(tail, chained);
    const tracked = chained.then(
      () => {
        let upTo: bigint | null = null;
        for (const r of records) upTo = offsets.done(partition, r.offset) ?? upTo;
        commit(partition, upTo);
      },
      (err: unknown) =>
        opts.log("warn", "records left uncommitted", {
          tail,
          from: String(records[0]?.offset),
          records: records.length,
          err,
        }),
    );
    inFlight.add(tracked);
    flying += records.length;
    void tracked.finally(() => {
      inFlight.delete(tracked);
      flying -= records.length;
      if (tails.get(tail) === chained) tails.delete(tail);
      for (const wake of waiting) wake();
      waiting.clear();
    });
  }

  function dispatch(record: ReadRecord): void {
    const key = record.key?.toString() ?? "";
    const handle = opts.handle as (record: ReadRecord) => Promise<void>;
    track(key, record.partition, [record], () => handleUntilDone(record, key, handle));
  }

  function dispatchBatch(
    handleBatch: (records: ReadRecord[]) => Promise<void>,
    partition: number,
    records: ReadRecord[],
  ): void {
    // A partition's batches one after another: a key's records stay in offset order.
    track(`\u0000partition ${partition}`, partition, records, () => batchUntilDone(handleBatch, records));
  }

  const run = async () => {
    await consumer.connect();
    await consumer.subscribe({ topics: [opts.topic], fromBeginning: true });
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: 16,
      eachBatch: async ({ batch, isRunning, isStale, resolveOffset, heartbeat }) => {
        const { handleBatch } = opts;
        for (let i = 0; i < batch.messages.length; ) {
          if (!isRunning() || isStale() || draining) return;
          while (flying >= opts.maxInFlight && !draining) {
            await new Promise<void>((r) => waiting.add(r));
            await heartbeat();
          }
          if (draining) return;
          // A batch handler takes as many records as there is room for, a record handler one.
          const chunk = batch.messages.slice(
            i,
            i + (handleBatch ? Math.max(1, opts.maxInFlight - flying) : 1),
          );
          i += chunk.length;
          const records = chunk.map((m) => readRecordOf(batch.partition, m));
          if (handleBatch) dispatchBatch(handleBatch, batch.partition, records);
          else dispatch(records[0] as ReadRecord);
          // Moves the fetch position only; commits are ours (autoCommit is off).
          resolveOffset((chunk[chunk.length - 1] as (typeof chunk)[number]).offset);
        }
        await heartbeat();
      },
    });
  };
  superviseConsumer(consumer, { onCrash: opts.onCrash, start: run, stopped: () => stopping });

  return {
    async start() {
      await deadLetters.connect();
      await run();
    },
    async stop(stopOpts = {}) {
      if (stopOpts.finishWithinMs !== undefined) {
        draining = true;
        consumer.pause([{ topic: opts.topic }]);
        for (const wake of waiting) wake();
        waiting.clear();
        if (!(await settledWithin([...inFlight], stopOpts.finishWithinMs))) {
          stopping = true;
          stopOpts.onUnfinished?.();
        }
      }
      stopping = true;
      await consumer.stop();
      await Promise.allSettled([...inFlight]);
      await consumer.disconnect();
      await deadLetters.disconnect();
    },
    inFlight: () => flying,
  };
}

/** true once every promise has settled, false if `ms` pass first. */
async function settledWithin(promises: Promise<unknown>[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const settled = await Promise.race([Promise.allSettled(promises).then(() => true as const), late]);
  clearTimeout(timer);
  return settled;
}
