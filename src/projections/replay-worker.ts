import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type { Session } from "../domain/types.ts";
import { createKafka, type KafkaSettings } from "../kafka/client.ts";
import type { CassandraSettings } from "../store/cassandra.ts";
import { collectJournal } from "./journal-collect.ts";
import type { StatesSummary } from "./journal-fold.ts";

/** What a replay worker is asked to do: read some partitions, fold their sessions, hand the states to a sink. */
export interface ReplayJob {
  kafka: Omit<KafkaSettings, "log">;
  topic: string;
  /** The partitions of this share and where each ends: the last stable offsets when the replay began. */
  until: Map<number, bigint>;
  /** "summary": report what the states add up to, keeping none; "read-model": write them to a table. */
  sink: { kind: "summary" } | { kind: "read-model"; cassandra: CassandraSettings; table: string };
}

export type ReplayWorkerMessage =
  | { type: "read"; records: number }
  /** foldMs: the time after the read, folding the sessions and handing them to the sink. */
  | { type: "done"; summary: StatesSummary; foldMs: number };

/** Progress is sent at most this often: a fetch of many small batches must not flood the channel. */
const PROGRESS_EVERY_MS = 100;

/** States are written to a read model this many at a time, so a worker never holds them all. */
const WRITE_CHUNK = 2000;

/**
 * Reads one share of the partitions, folds its sessions and hands the states to the sink: in a
 * worker thread, or on the thread that started the replay (whose modules are already loaded).
 */
export async function replayShare(
  job: ReplayJob,
  onRead: (records: number) => void,
  signal?: AbortSignal,
): Promise<{ summary: StatesSummary; foldMs: number }> {
  const kafka = createKafka({ ...job.kafka });
  // The codecs and the fold load while the first fetches are in flight (journal-collect.ts).
  const folding = Promise.all([import("./journal-fold.ts"), import("../kafka/codecs.ts")]);
  const journal = await collectJournal(kafka, {
    topic: job.topic,
    until: job.until,
    onRead,
    ...(signal ? { signal } : {}),
  });

  const started = Date.now();
  const [{ foldedSessions, StatesTally }, { singleObjectCodecs }] = await folding;
  // A worker thread is a start of its own: it builds its codecs (functions do not cross threads).
  const codec = singleObjectCodecs().sessionEvent;
  const tally = new StatesTally();
  const foldAll = async (each: (state: Session) => Promise<void> | undefined) => {
    for (const { state, events } of foldedSessions(codec, journal)) {
      tally.add(state, events);
      const pending = state && each(state);
      if (pending) await pending;
    }
  };
  if (job.sink.kind === "summary") {
    // Nothing kept: a state held past the next young collection is copied, and that was the cost.
    await foldAll(() => undefined);
  } else {
    // Loaded only for this sink: the driver's import is a tenth of a second of every worker's start.
    const [{ connectCassandra }, { createSessionReadModel }] = await Promise.all([
      import("../store/cassandra.ts"),
      import("./read-model.ts"),
    ]);
    const cassandra = await connectCassandra(job.sink.cassandra, { migrate: false });
    try {
      const model = createSessionReadModel(cassandra, job.sink.table);
      let chunk: Session[] = [];
      await foldAll((state) => {
        chunk.push(state);
        if (chunk.length < WRITE_CHUNK) return undefined;
        const full = chunk;
        chunk = [];
        return model.write(full);
      });
      if (chunk.length > 0) await model.write(chunk);
    } finally {
      await cassandra.shutdown();
    }
  }
  return { summary: tally.summary(), foldMs: Date.now() - started };
}

async function runInWorker(job: ReplayJob, post: (m: ReplayWorkerMessage) => void): Promise<void> {
  let unsent = 0;
  let sentAt = 0;
  const result = await replayShare(job, (records) => {
    unsent += records;
    const now = Date.now();
    if (now - sentAt >= PROGRESS_EVERY_MS) {
      post({ type: "read", records: unsent });
      unsent = 0;
      sentAt = now;
    }
  });
  if (unsent > 0) post({ type: "read", records: unsent });
  post({ type: "done", ...result });
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  // A failure rejects here and reaches the parent as the worker's "error" event.
  await runInWorker(workerData as ReplayJob, (m) => port.postMessage(m));
}
