import { availableParallelism } from "node:os";
import type { Worker } from "node:worker_threads";
import { TOPIC } from "../../topics/catalogue.ts";
import type { Session } from "../domain/types.ts";
import { createKafka, type KafkaClient, type KafkaSettings } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { stableEndOffsets } from "../kafka/topics.ts";
import { type CassandraSettings, connectCassandra } from "../store/cassandra.ts";
import { replayPositions } from "../store/replay-positions.ts";
import { startWorker } from "../support/worker.ts";
import { addSummaries, type StatesSummary } from "./journal-fold.ts";
import type { FoldCounts } from "./journal-stream.ts";
import { createSessionReadModel } from "./read-model.ts";
import { CollectSink } from "./replay-sinks.ts";
import { foldShare, type ReplayJob, type ReplayReader, type ReplayWorkerMessage } from "./replay-worker.ts";

/**
 * The most session states a replay holds at once, over all its threads, unless told otherwise:
 * ~0.4 GiB of states of ten deposits each (docs/PERFORMANCE.md, "Replay"). More open sessions than
 * this still replay, to the same result: the oldest are written out and read back if they go on.
 */
export const DEFAULT_MAX_OPEN_SESSIONS = 100_000;

/**
 * The old generation a replay thread may use, in MiB, for a share holding at most `maxOpen` states:
 * a held state of ten deposits is ~8 KB (docs/PERFORMANCE.md, "Replay"), budgeted here at 12 KB, plus
 * the thread's modules, codecs and fetched batches. Without a cap V8 let a thread's heap grow to
 * three times its live states before collecting (2.4 GB for 0.75 GB live at 10M events), so the
 * peak followed the journal's length; with it, full collections come near the states' own size.
 */
export function replayHeapMb(maxOpen: number): number {
  return Math.ceil(REPLAY_HEAP_BASE_MB + (maxOpen * STATE_BUDGET_BYTES) / 2 ** 20);
}
const REPLAY_HEAP_BASE_MB = 128;
const STATE_BUDGET_BYTES = 12 * 1024;

export interface ReplayProgress {
  /** Records read so far, and in all (from where the replay started to the stable end offsets when it began). */
  read: number;
  total: number;
  /** Sessions started so far (their first event read), and states held in memory now. */
  sessions: number;
  held: number;
}

export interface ReplayOptions {
  /** Another journal of SessionEvent records (a copy, or the replay benchmark's scratch topic). */
  topic?: string;
  /**
   * Worker threads; partitions are dealt out among them. Default: one per core,
   * at most one per partition.
   */
  workers?: number;
  /** The most states held at once (DEFAULT_MAX_OPEN_SESSIONS); split between the partitions. */
  maxOpenSessions?: number;
  /** How the journal is read (default "batches": our own batch decoder). */
  reader?: ReplayReader;
  onProgress?: (p: ReplayProgress) => void;
  signal?: AbortSignal;
}

export interface ReplayResult {
  /** What the written states add up to; `events` is the events applied by this run. */
  summary: StatesSummary;
  /** Threads that read and folded. */
  threads: number;
  /** Time after the read, writing the states still held (the slowest thread's). */
  foldMs: number;
  /** Where the read stopped in each partition (exclusive): the stable end offsets when it began. */
  until: Map<number, bigint>;
  /** Where it started in each partition: 0, or a resumed replay's committed positions. */
  from: Map<number, bigint>;
  /** Summed over the threads; peakHeld is the sum of each thread's peak. */
  counts: FoldCounts;
}

/**
 * Rebuilds every session's state from the journal, folding each record as it streams: a session's
 * events all live in one partition, in order, so partitions fold independently, each thread reading
 * its share of them with its own consumer and handing the states to the sink itself; only progress
 * and a summary cross threads. A state leaves memory once its session is terminal, or when its
 * partition holds more than its share of `maxOpenSessions` (journal-stream.ts), so memory follows
 * the sessions open at once, never the journal's length. Every share runs in a worker thread whose
 * heap is capped for its share of the bound (replayHeapMb): the calling thread's heap could not be
 * capped, and it stays free for the caller (a service's requests, a progress bar).
 */
export async function replayJournal(
  kafka: Omit<KafkaSettings, "log">,
  sink: ReplayJob["sink"],
  opts: ReplayOptions & { from?: Map<number, bigint> } = {},
): Promise<ReplayResult> {
  const topic = opts.topic ?? TOPIC.sessionEvents;
  const ends = await stableEndOffsets(createKafka({ ...kafka }), topic);
  const partitions = [...ends.keys()].sort((a, b) => a - b);
  const from = new Map(partitions.map((p) => [p, opts.from?.get(p) ?? 0n]));
  const total = partitions.reduce(
    (n, p) => n + Math.max(0, Number((ends.get(p) ?? 0n) - (from.get(p) ?? 0n))),
    0,
  );
  const count = Math.max(1, Math.min(opts.workers ?? availableParallelism(), partitions.length));
  const shares = Array.from({ length: count }, (_, i) => partitions.filter((_, j) => j % count === i));
  const maxOpen = opts.maxOpenSessions ?? DEFAULT_MAX_OPEN_SESSIONS;

  let read = 0;
  let sessions = 0;
  const held = new Array<number>(count).fill(0);
  const report = () =>
    opts.onProgress?.({
      read: Math.min(read, total),
      total,
      sessions,
      held: held.reduce((a, b) => a + b, 0),
    });
  const onRead = (share: number) => (p: { records: number; sessions: number; held: number }) => {
    read += p.records;
    sessions += p.sessions;
    held[share] = p.held;
    report();
  };
  const workers: Worker[] = [];
  const stopAll = () => {
    for (const w of workers) void w.terminate();
  };
  const onAbort = () => stopAll();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    report();
    const jobs = shares.map(
      (share): ReplayJob => ({
        kafka,
        topic,
        partitions: new Map(share.map((p) => [p, { from: from.get(p) ?? 0n, until: ends.get(p) ?? 0n }])),
        maxOpen: Math.max(1, Math.floor((maxOpen * share.length) / partitions.length)),
        ...(opts.reader ? { reader: opts.reader } : {}),
        sink,
      }),
    );
    type Done = Extract<ReplayWorkerMessage, { type: "done" }>;
    const inWorkers = jobs.map(
      (job, i) =>
        new Promise<Omit<Done, "type">>((resolve, reject) => {
          const worker = startWorker(new URL("./replay-worker.ts", import.meta.url), job, {
            maxOldGenerationSizeMb: replayHeapMb(job.maxOpen),
          });
          workers.push(worker);
          const progress = onRead(i);
          worker.on("message", (m: ReplayWorkerMessage) => {
            if (m.type === "read") progress(m);
            else {
              resolve(m);
              void worker.terminate();
            }
          });
          worker.once("error", (err) => {
            stopAll();
            reject(err);
          });
          worker.once("exit", (code) => {
            if (opts.signal?.aborted) reject(opts.signal.reason ?? new Error("aborted"));
            // After "done" the exit is ours (terminate); before it, the worker died.
            else
              reject(
                new Error(
                  `replay worker for partitions ${[...job.partitions.keys()].join(",")} exited (${code})`,
                ),
              );
          });
        }),
    );
    const results = await Promise.all(inWorkers);
    read = total;
    held.fill(0);
    report();
    const [head, ...rest] = results.map((r) => r.summary);
    return {
      summary: rest.reduce(addSummaries, head as StatesSummary),
      threads: count,
      foldMs: Math.max(...results.map((r) => r.afterReadMs)),
      until: ends,
      from,
      counts: results.map((r) => r.counts).reduce(addCounts),
    };
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
    for (const w of workers) void w.terminate();
  }
}

function addCounts(a: FoldCounts, b: FoldCounts): FoldCounts {
  return {
    events: a.events + b.events,
    sessions: a.sessions + b.sessions,
    reopened: a.reopened + b.reopened,
    deferred: a.deferred + b.deferred,
    peakHeld: a.peakHeld + b.peakHeld,
  };
}

/**
 * The same fold on the calling thread, returning the states themselves: for callers that need the
 * states in hand (tests, tools). Holding every state is the caller's choice here; the fold itself
 * still holds at most `maxOpenSessions` and reads the others back from the states in hand.
 */
export async function replayStates(
  kafka: KafkaClient,
  codecs: Pick<Codecs, "sessionEvent">,
  opts: Omit<ReplayOptions, "workers"> = {},
): Promise<{ states: Map<string, Session>; events: number; counts: FoldCounts }> {
  const topic = opts.topic ?? TOPIC.sessionEvents;
  const ends = await stableEndOffsets(kafka, topic);
  const total = [...ends.values()].reduce((n, end) => n + Number(end), 0);
  const sink = new CollectSink();
  let read = 0;
  let sessions = 0;
  const { counts } = await foldShare(kafka, codecs.sessionEvent, sink, {
    topic,
    partitions: new Map([...ends].map(([p, until]) => [p, { from: 0n, until }])),
    maxOpen: opts.maxOpenSessions ?? DEFAULT_MAX_OPEN_SESSIONS,
    ...(opts.reader ? { reader: opts.reader } : {}),
    onRead: (p) => {
      read += p.records;
      sessions += p.sessions;
      opts.onProgress?.({ read, total, sessions, held: p.held });
    },
    ...(opts.signal ? { signal: opts.signal } : {}),
  });
  opts.onProgress?.({ read: total, total, sessions, held: 0 });
  return { states: sink.states, events: counts.events, counts };
}

export interface RebuildOptions extends ReplayOptions {
  /**
   * Go on from the positions a stopped replay of the same table committed (default true). A replay
   * that reached its end, or none at all, starts from offset zero; so does every replay with false.
   */
  resume?: boolean;
  /** How often each thread commits its positions (default 10 s). */
  checkpointMs?: number;
}

/**
 * Replays the journal and writes every session's final state into a read model table, committing
 * each partition's position as it goes (replay_positions), so that a replay stopped half way goes
 * on from there the next time.
 */
export async function rebuildReadModel(
  settings: { kafka: Omit<KafkaSettings, "log">; cassandra: CassandraSettings; table: string },
  opts: RebuildOptions = {},
): Promise<{
  sessions: number;
  events: number;
  foldMs: number;
  until: Map<number, bigint>;
  /** The committed positions it went on from, when it resumed a stopped replay. */
  resumedFrom: Map<number, bigint> | null;
  counts: FoldCounts;
}> {
  const cassandra = await connectCassandra(settings.cassandra, { migrate: false });
  let resumedFrom: Map<number, bigint> | null = null;
  try {
    await createSessionReadModel(cassandra, settings.table).ensureTable();
    const positions = replayPositions(cassandra);
    await positions.ensure();
    const committed = await positions.read(settings.table);
    if (opts.resume !== false && committed && !committed.finished) resumedFrom = committed.positions;
    else if (committed) await positions.clear(settings.table);
  } finally {
    await cassandra.shutdown();
  }
  const { summary, foldMs, until, counts } = await replayJournal(
    settings.kafka,
    {
      kind: "read-model",
      cassandra: settings.cassandra,
      table: settings.table,
      commitPositions: true,
      ...(opts.checkpointMs !== undefined ? { checkpointMs: opts.checkpointMs } : {}),
    },
    { ...opts, ...(resumedFrom ? { from: resumedFrom } : {}) },
  );
  return {
    sessions: resumedFrom ? counts.sessions : summary.sessions,
    events: summary.events,
    foldMs,
    until,
    resumedFrom,
    counts,
  };
}
