import { constants, PerformanceObserver } from "node:perf_hooks";
import { getHeapStatistics } from "node:v8";
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type { SessionEvent } from "../domain/events.ts";
import type { Session } from "../domain/types.ts";
import { readTopicBatches } from "../kafka/batch-reader.ts";
import { createKafka, type KafkaClient, type KafkaSettings } from "../kafka/client.ts";
import type { Codec } from "../kafka/codecs.ts";
import { type FetchSizes, type ReadRecord, readTopic } from "../kafka/topic-reader.ts";
import type { CassandraSettings } from "../store/cassandra.ts";
import type { StatesSummary } from "./journal-fold.ts";
import type { FoldCounts, JournalFold, PositionStore, StateSink } from "./journal-stream.ts";

/**
 * A replay's fetch sizes: 2 MiB per response, which then carries about one partition's records
 * (the broker varies which: the partitions of a read still finish together).
 * Small on purpose: kafkajs joins each response into one new buffer, and with 64 MiB responses that
 * allocation and copy cost more than the records in them (15% of a replay's CPU in a profile);
 * 2 MiB blocks are reused as they are freed. Twice the broker's default batch limit, so a batch is
 * never cut for want of room (measured against other sizes in docs/PERFORMANCE.md).
 */
export const REPLAY_FETCH: FetchSizes = { maxBytesPerPartition: 2 * 1024 * 1024, maxBytes: 2 * 1024 * 1024 };

/**
 * How a replay reads the journal: "batches", its own Fetch requests and record-batch decoder
 * (src/kafka/batch-reader.ts: no per-record message objects, no 64-bit string round trips); or
 * "kafkajs", a kafkajs consumer (readTopic), kept to measure the one against the other.
 */
export type ReplayReader = "batches" | "kafkajs";

export const readerOf = (reader: ReplayReader = "batches") =>
  reader === "kafkajs" ? readTopic : readTopicBatches;

/** What a replay worker is asked to do: read some partitions, fold their sessions, hand the states to a sink. */
export interface ReplayJob {
  kafka: Omit<KafkaSettings, "log">;
  topic: string;
  /** The partitions of this share: where each starts (0, or a resumed replay's committed position) and ends. */
  partitions: Map<number, { from: bigint; until: bigint }>;
  /** The most states this share holds at once (JournalFoldOptions.maxOpen). */
  maxOpen: number;
  reader?: ReplayReader;
  /** "summary": report what the states add up to, keeping none; "read-model": write them to a table. */
  sink:
    | { kind: "summary" }
    | {
        kind: "read-model";
        cassandra: CassandraSettings;
        table: string;
        /** Commit each partition's position (replay_positions) so a stopped replay can resume. */
        commitPositions?: boolean;
        checkpointMs?: number;
      };
}

/** Records read, sessions started and states held, since the previous message / now. */
export interface ShareProgress {
  records: number;
  sessions: number;
  held: number;
}

export type ReplayWorkerMessage =
  | ({ type: "read" } & ShareProgress)
  /** afterReadMs: the time after the last record was read, writing what was held and what the sink still had to write. */
  | { type: "done"; summary: StatesSummary; counts: FoldCounts; afterReadMs: number };

/** Progress is sent at most this often: a fetch of many small batches must not flood the channel. */
const PROGRESS_EVERY_MS = 100;

export interface FoldShareOptions {
  topic: string;
  partitions: Map<number, { from: bigint; until: bigint }>;
  maxOpen: number;
  reader?: ReplayReader;
  positions?: PositionStore;
  checkpointMs?: number;
  /** After every batch: its records, the sessions it started, the states held now. */
  onRead?: (p: ShareProgress) => void;
  signal?: AbortSignal;
  /** Lower the bound when the thread's heap runs short (watchHeap): for a thread with a capped heap. */
  watchHeap?: boolean;
}

/**
 * Past this share of the heap's limit after a full collection, the fold holds fewer states. The
 * thread's cap (replay.ts, replayHeapMb) budgets a state's size; sessions heavier than the budget
 * must cost more reads back, not run the thread out of memory.
 */
const HEAP_HIGH = 0.7;

/**
 * After each full collection, when the heap still in use is above HEAP_HIGH of its limit, lowers
 * the fold's bound in proportion, to 80% of that mark. Returns the function that stops watching.
 */
function watchHeap(fold: () => JournalFold | undefined): () => void {
  const observer = new PerformanceObserver((list) => {
    const major = list
      .getEntries()
      .some(
        (e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR,
      );
    const f = fold();
    if (!major || !f) return;
    const { used_heap_size: used, heap_size_limit: limit } = getHeapStatistics();
    if (used > HEAP_HIGH * limit) f.limit(Math.floor((f.held * 0.8 * HEAP_HIGH * limit) / used));
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}

/**
 * Reads one share of the partitions from their start positions and folds each record as it arrives
 * (JournalFold), the states going to `sink`. The codec may still be loading when the first fetch
 * comes back: a worker's first fetches overlap its module loading.
 */
export async function foldShare(
  kafka: KafkaClient,
  codec: Codec<SessionEvent> | Promise<Codec<SessionEvent>>,
  sink: StateSink,
  opts: FoldShareOptions,
): Promise<{ counts: FoldCounts; afterReadMs: number }> {
  const { JournalFold } = await import("./journal-stream.ts");
  const read = readerOf(opts.reader);
  const reread = async (
    partition: number,
    until: bigint,
    onBatch: (records: ReadRecord[]) => Promise<void> | void,
  ) => {
    await read(kafka, {
      topic: opts.topic,
      from: new Map([[partition, 0n]]),
      until: new Map([[partition, until]]),
      fetch: REPLAY_FETCH,
      onBatch,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
  };
  let fold: InstanceType<typeof JournalFold> | undefined;
  const foldFor = async () => {
    fold ??= new JournalFold(await codec, sink, opts.partitions, {
      maxOpen: opts.maxOpen,
      reread,
      ...(opts.positions ? { positions: opts.positions } : {}),
      ...(opts.checkpointMs !== undefined ? { checkpointMs: opts.checkpointMs } : {}),
    });
    return fold;
  };
  let sessions = 0;
  const unwatch = opts.watchHeap ? watchHeap(() => fold) : () => {};
  try {
    await read(kafka, {
      topic: opts.topic,
      from: new Map([...opts.partitions].map(([p, { from }]) => [p, from])),
      until: new Map([...opts.partitions].map(([p, { until }]) => [p, until])),
      fetch: REPLAY_FETCH,
      ...(opts.signal ? { signal: opts.signal } : {}),
      onBatch: async (records) => {
        const f = fold ?? (await foldFor());
        await f.apply(records[0]?.partition as number, records);
        opts.onRead?.({ records: records.length, sessions: f.counts.sessions - sessions, held: f.held });
        sessions = f.counts.sessions;
      },
      onProgress: (partition, next) => fold?.advance(partition, next),
    });
  } finally {
    unwatch();
  }
  const started = Date.now();
  const f = await foldFor();
  const counts = await f.finish();
  return { counts, afterReadMs: Date.now() - started };
}

/**
 * One share of a replay, on its own worker thread: makes its own Kafka client, codec and sink from
 * the job. It takes no abort signal: an aborted replay terminates its workers (src/projections/replay.ts).
 */
async function replayShare(
  job: ReplayJob,
  onRead: (p: ShareProgress) => void,
): Promise<{ summary: StatesSummary; counts: FoldCounts; afterReadMs: number }> {
  const kafka = createKafka({ ...job.kafka });
  // A worker thread is a start of its own: it builds its codecs (functions do not cross threads).
  const codec = import("../kafka/codecs.ts").then((m) => m.singleObjectCodecs().sessionEvent);
  const common = {
    topic: job.topic,
    partitions: job.partitions,
    maxOpen: job.maxOpen,
    ...(job.reader ? { reader: job.reader } : {}),
    onRead,
    watchHeap: true,
  };
  const { SummarySink, readModelSink } = await import("./replay-sinks.ts");
  if (job.sink.kind === "summary") {
    const sink = new SummarySink();
    const { counts, afterReadMs } = await foldShare(kafka, codec, sink, common);
    const summary = sink.tally.summary();
    return { summary: { ...summary, events: counts.events }, counts, afterReadMs };
  }
  const target = job.sink;
  // Loaded only for this sink: the driver's import is a tenth of a second of every worker's start.
  const [{ connectCassandra }, { createSessionReadModel }, { replayPositions }, { StatesTally }] =
    await Promise.all([
      import("../store/cassandra.ts"),
      import("./read-model.ts"),
      import("../store/replay-positions.ts"),
      import("./journal-fold.ts"),
    ]);
  const cassandra = await connectCassandra(target.cassandra, { migrate: false });
  try {
    const model = createSessionReadModel(cassandra, target.table);
    const inner = readModelSink(model);
    // The summary of what this run wrote (a state written twice counts once: its first write is taken back).
    const tally = new StatesTally();
    const sink = {
      write: (states: Session[]) => {
        for (const s of states) tally.add(s, 0);
        return inner.write(states);
      },
      load: async (ids: string[]) => {
        const found = await (inner.load as NonNullable<typeof inner.load>)(ids);
        for (const s of found.values()) tally.remove(s);
        return found;
      },
      retract: (s: Session) => tally.remove(s),
    };
    const store = replayPositions(cassandra);
    const positions: PositionStore | undefined = target.commitPositions
      ? { commit: (marks, finished) => store.commit(target.table, marks, finished) }
      : undefined;
    const { counts, afterReadMs } = await foldShare(kafka, codec, sink, {
      ...common,
      ...(positions ? { positions } : {}),
      ...(target.checkpointMs !== undefined ? { checkpointMs: target.checkpointMs } : {}),
    });
    return { summary: { ...tally.summary(), events: counts.events }, counts, afterReadMs };
  } finally {
    await cassandra.shutdown();
  }
}

async function runInWorker(job: ReplayJob, post: (m: ReplayWorkerMessage) => void): Promise<void> {
  const unsent = { records: 0, sessions: 0, held: 0 };
  let sentAt = 0;
  const flush = () => {
    post({ type: "read", ...unsent });
    unsent.records = 0;
    unsent.sessions = 0;
  };
  const result = await replayShare(job, (p) => {
    unsent.records += p.records;
    unsent.sessions += p.sessions;
    unsent.held = p.held;
    const now = Date.now();
    if (now - sentAt >= PROGRESS_EVERY_MS) {
      flush();
      sentAt = now;
    }
  });
  if (unsent.records > 0) flush();
  post({ type: "done", ...result });
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  // A failure rejects here and reaches the parent as the worker's "error" event.
  await runInWorker(workerData as ReplayJob, (m) => port.postMessage(m));
}
