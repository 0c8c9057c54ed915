import { isMainThread, parentPort, workerData } from "node:worker_threads";
import { createKafka, type KafkaSettings } from "../kafka/client.ts";
import type { CassandraSettings } from "../store/cassandra.ts";
import { foldJournal, type StatesSummary, summarize } from "./journal-fold.ts";

/** What a replay worker is asked to do: fold some partitions, then hand the states to a sink. */
export interface ReplayJob {
  kafka: Omit<KafkaSettings, "log">;
  topic: string;
  partitions: number[];
  /** "summary": keep the states and report what they add up to; "read-model": write them to a table. */
  sink: { kind: "summary" } | { kind: "read-model"; cassandra: CassandraSettings; table: string };
}

export type ReplayWorkerMessage =
  | { type: "read"; records: number }
  | { type: "done"; summary: StatesSummary; writeMs: number };

/** Progress is sent at most this often: a fetch of many small batches must not flood the channel. */
const PROGRESS_EVERY_MS = 100;

async function run(job: ReplayJob, post: (m: ReplayWorkerMessage) => void): Promise<void> {
  const kafka = createKafka({ ...job.kafka });
  let unsent = 0;
  let sentAt = 0;
  const folded = await foldJournal(kafka, {
    topic: job.topic,
    partitions: job.partitions,
    onRead: (records) => {
      unsent += records;
      const now = Date.now();
      if (now - sentAt >= PROGRESS_EVERY_MS) {
        post({ type: "read", records: unsent });
        unsent = 0;
        sentAt = now;
      }
    },
  });
  if (unsent > 0) post({ type: "read", records: unsent });
  const started = Date.now();
  if (job.sink.kind === "read-model") {
    // Loaded only for this sink: the driver's import is a tenth of a second of every worker's start.
    const [{ connectCassandra }, { createSessionReadModel }] = await Promise.all([
      import("../store/cassandra.ts"),
      import("./read-model.ts"),
    ]);
    const cassandra = await connectCassandra(job.sink.cassandra, { migrate: false });
    try {
      await createSessionReadModel(cassandra, job.sink.table).write([...folded.states.values()]);
    } finally {
      await cassandra.shutdown();
    }
  }
  post({ type: "done", summary: summarize(folded), writeMs: Date.now() - started });
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  // A failure rejects here and reaches the parent as the worker's "error" event.
  await run(workerData as ReplayJob, (m) => port.postMessage(m));
}
