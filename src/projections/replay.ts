import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { TOPIC } from "../../topics/catalogue.ts";
import type { Session } from "../domain/types.ts";
import { createKafka, type KafkaClient, type KafkaSettings } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { recordsBefore, stableEndOffsets } from "../kafka/topics.ts";
import { type CassandraSettings, connectCassandra } from "../store/cassandra.ts";
import { startWorker } from "../support/worker.ts";
import { addSummaries, foldJournal, type StatesSummary } from "./journal-fold.ts";
import { createSessionReadModel } from "./read-model.ts";
import { type ReplayJob, type ReplayWorkerMessage, replayShare } from "./replay-worker.ts";

export interface ReplayProgress {
  /** Records read so far, and in all (the stable end offsets when the replay began). */
  read: number;
  total: number;
}

export interface ReplayOptions {
  /** Another journal of SessionEvent records (a copy, or the replay benchmark's scratch topic). */
  topic?: string;
  /**
   * Threads, the calling one included; partitions are dealt out among them. Default: one per core,
   * at most one per partition.
   */
  workers?: number;
  onProgress?: (p: ReplayProgress) => void;
  signal?: AbortSignal;
}

export interface ReplayResult {
  summary: StatesSummary;
  /** Threads that read and folded, the calling one included. */
  threads: number;
  /** Time spent after the read, folding the sessions and handing them to the sink (the slowest thread's). */
  foldMs: number;
  /** Where the read stopped in each partition (exclusive): the stable end offsets when it began. */
  until: Map<number, bigint>;
}

/**
 * Rebuilds every session's state from offset zero of session.events. The journal is the only input,
 * so the states equal what the live actors hold. A session's events all live in one partition, so
 * partitions fold independently: each thread reads its share of the partitions with its own
 * consumer, then folds their sessions one at a time (journal-collect.ts says why in two phases) and
 * hands the states to the sink itself; only progress and a summary cross threads. On a small
 * machine that spreads Kafka's record decoding, the Avro decoding and the fold over every core.
 * The calling thread takes the first share itself: its modules are loaded, so it reads at once,
 * and a worker fewer is a worker start fewer (about 0.4 s of module loading on this machine).
 */
export async function replayJournal(
  kafka: Omit<KafkaSettings, "log">,
  sink: ReplayJob["sink"],
  opts: ReplayOptions = {},
): Promise<ReplayResult> {
  const topic = opts.topic ?? TOPIC.sessionEvents;
  const ends = await stableEndOffsets(createKafka({ ...kafka }), topic);
  const partitions = [...ends.keys()].sort((a, b) => a - b);
  const total = recordsBefore(ends);
  const count = Math.max(1, Math.min(opts.workers ?? availableParallelism(), partitions.length));
  const shares = Array.from({ length: count }, (_, i) => partitions.filter((_, j) => j % count === i));

  let read = 0;
  const onRead = (records: number) => {
    read += records;
    opts.onProgress?.({ read: Math.min(read, total), total });
  };
  const workers: Worker[] = [];
  // Also stops this thread's own share: when a worker fails, or when the caller aborts.
  const stop = new AbortController();
  const stopAll = (reason?: unknown) => {
    if (!stop.signal.aborted) stop.abort(reason);
    for (const w of workers) void w.terminate();
  };
  const onAbort = () => stopAll(opts.signal?.reason);
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    opts.onProgress?.({ read, total });
    const [own, ...others] = shares.map(
      (share): ReplayJob => ({
        kafka,
        topic,
        until: new Map(share.map((p) => [p, ends.get(p) ?? 0n])),
        sink,
      }),
    );
    const inWorkers = others.map(
      (job) =>
        new Promise<{ summary: StatesSummary; foldMs: number }>((resolve, reject) => {
          const worker = startWorker(new URL("./replay-worker.ts", import.meta.url), job);
          workers.push(worker);
          worker.on("message", (m: ReplayWorkerMessage) => {
            if (m.type === "read") onRead(m.records);
            else {
              resolve({ summary: m.summary, foldMs: m.foldMs });
              void worker.terminate();
            }
          });
          worker.once("error", (err) => {
            stopAll(err);
            reject(err);
          });
          worker.once("exit", (code) => {
            if (opts.signal?.aborted) reject(opts.signal.reason ?? new Error("aborted"));
            // After "done" the exit is ours (terminate); before it, the worker died.
            else
              reject(
                new Error(`replay worker for partitions ${[...job.until.keys()].join(",")} exited (${code})`),
              );
          });
        }),
    );
    const results = await Promise.all([replayShare(own as ReplayJob, onRead, stop.signal), ...inWorkers]);
    opts.onProgress?.({ read: total, total });
    const [first, ...rest] = results.map((r) => r.summary);
    return {
      summary: rest.reduce(addSummaries, first as StatesSummary),
      threads: count,
      foldMs: Math.max(...results.map((r) => r.foldMs)),
      until: ends,
    };
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    for (const w of workers) void w.terminate();
  }
}

/**
 * The same fold on the calling thread, returning the states themselves: for callers that need the
 * states in hand (tests, tools) and journals small enough that threads do not pay.
 */
export async function replayStates(
  kafka: KafkaClient,
  codecs: Pick<Codecs, "sessionEvent">,
  opts: Omit<ReplayOptions, "workers"> = {},
): Promise<{ states: Map<string, Session>; events: number }> {
  const topic = opts.topic ?? TOPIC.sessionEvents;
  const ends = await stableEndOffsets(kafka, topic);
  const total = recordsBefore(ends);
  let read = 0;
  const folded = await foldJournal(kafka, codecs.sessionEvent, {
    topic,
    until: ends,
    onRead: (records) => {
      read += records;
      opts.onProgress?.({ read, total });
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  opts.onProgress?.({ read: total, total });
  return folded;
}

/** Replays the journal and writes every session's final state into a read model table. */
export async function rebuildReadModel(
  settings: { kafka: Omit<KafkaSettings, "log">; cassandra: CassandraSettings; table: string },
  opts: Omit<ReplayOptions, "topic"> = {},
): Promise<{ sessions: number; events: number; foldMs: number; until: Map<number, bigint> }> {
  const cassandra = await connectCassandra(settings.cassandra, { migrate: false });
  try {
    await createSessionReadModel(cassandra, settings.table).ensureTable();
  } finally {
    await cassandra.shutdown();
  }
  const { summary, foldMs, until } = await replayJournal(
    settings.kafka,
    { kind: "read-model", cassandra: settings.cassandra, table: settings.table },
    opts,
  );
  return { sessions: summary.sessions, events: summary.events, foldMs, until };
}
