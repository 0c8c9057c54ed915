/**
 * Ingest throughput, transfers to `detected` events, against its honest baseline, side by side in
 * one run. Prints figures; asserts nothing.
 *
 *   (a) plain: an at-least-once consume-and-produce of the same TransferObserved records: a kafkajs
 *       group reads a scratch input topic, produces one record per input (its bytes, unchanged) to a
 *       scratch output topic with kafkajs's default producer, and commits the offsets after each batch.
 *   (b) ours: the real actor host (createSessionHost) on chain.transfers, exactly once: decode, decide,
 *       evolve, and one Kafka transaction per batch holding the DepositObserved events and the input
 *       offsets. It runs under .local/run/suite.lock, because it shares the "actors" group and the
 *       session topics with the integration suites; its sessions are new ones, created first.
 *
 * Both are timed from the first input record produced to the last output record visible to a
 * read_committed consumer, with the same input producer (a worker thread, as fast as the broker
 * takes it), the same observer and the same warm-up, alternating round by round.
 *
 *   npx tsx test/bench/ingest.bench.ts [transfers=50000] [sessions=5000] [rounds=3]
 */

import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import { createSessionHost, sessionSnapshots } from "../../src/entities/session.ts";
import { createKafka, kafkajs } from "../../src/kafka/client.ts";
import { ensureTopics, recordsBefore, stableEndOffsets } from "../../src/kafka/topics.ts";
import { createLogger } from "../../src/logging.ts";
import { connectCassandra } from "../../src/store/cassandra.ts";
import { createSnapshotTable } from "../../src/store/snapshots.ts";
import { TOPIC, topicCatalogue } from "../../topics/catalogue.ts";
import { codecs } from "../support/codecs.ts";
import { measureClassification } from "./classification.ts";
import { withFileLock } from "./flock.ts";
import { fmtMedianPeak, fmtMiB, peakRssMiB, resetPeakRss } from "./peak-rss.ts";
import { createSession, fmtRate, median, newSessionId, perSecond, transferObserved } from "./workload.ts";

const [transfers = 50_000, sessions = 5_000, rounds = 3] = process.argv.slice(2).map(Number);
const PLAIN_IN = "bench.ingest.transfers";
const PLAIN_OUT = "bench.ingest.detected";
/** Round 0 warms both paths up (JIT, connections, the host's restore) with a tenth of the load. */
const WARM_UP = 10;
const SUITE_LOCK = ".local/run/suite.lock";
/** A run fails when no output record arrives for this long. */
const STALL_MS = 30_000;

type Message = { key: string; value: Buffer };

const config = parseConfig({ ...process.env, LOG_LEVEL: "warn" });
const infra = await resolveInfra(config, { ensureStack });
const kafka = createKafka({ brokers: infra.brokers, clientId: "bench.ingest" });
const partitions = config.SESSION_PARTITIONS;
await ensureTopics(kafka, [
  ...topicCatalogue({ sessionPartitions: partitions }),
  // Scratch topics: each run reads only what it wrote (from the end offsets it found), so they are kept.
  ...[PLAIN_IN, PLAIN_OUT].map((name) => ({
    name,
    partitions,
    cleanupPolicy: "delete" as const,
    retentionMs: 24 * 3_600_000,
  })),
]);

console.log(
  `node ${process.version}, ${transfers.toLocaleString("en")} transfers over ${sessions.toLocaleString("en")} sessions, ${rounds} rounds after a warm-up round`,
);
// The part of ours that tells accepted deposits from unsupported ones, in this process (no Kafka).
measureClassification();
// Ours depends on the journal's size: the host holds, and snapshots, every session ever created.
const journal = recordsBefore(await stableEndOffsets(kafka, TOPIC.sessionEvents));
console.log(`session.events holds ${journal.toLocaleString("en")} records before this run`);
const input = await startInputProducer();
const plainRates: number[] = [];
const ourRates: number[] = [];
const plainPeaks: Array<number | null> = [];
const ourPeaks: Array<number | null> = [];
const plain = await startPlain();
try {
  await withFileLock(SUITE_LOCK, async () => {
    const actors = await startActors();
    try {
      for (let round = 0; round <= rounds; round++) {
        const n = round === 0 ? Math.ceil(transfers / WARM_UP) : transfers;
        const s = round === 0 ? Math.ceil(sessions / WARM_UP) : sessions;
        const created = await actors.create(s);
        const a = await plain.run(s, n);
        const b = await actors.run(created, n);
        const name = round === 0 ? "warm-up" : `round ${round}`;
        console.log(`${name}: ${n.toLocaleString("en")} transfers, ${s.toLocaleString("en")} sessions`);
        report("  plain at-least-once (a)", a);
        report("  actors, exactly once (b)", b);
        if (round === 0) continue;
        plainRates.push(a.rate);
        ourRates.push(b.rate);
        plainPeaks.push(a.peakMiB);
        ourPeaks.push(b.peakMiB);
      }
    } finally {
      // Bounded: the lock is released after this, whatever state the host is in.
      await Promise.race([actors.stop(), sleep(STALL_MS)]);
    }
  });
} finally {
  await plain.stop();
  await input.terminate();
}
const [a, b] = [median(plainRates), median(ourRates)];
console.log(
  `\nmedian   plain at-least-once (a)  ${fmtRate(a).padStart(8)} transfers/s   peak RSS ${fmtMedianPeak(plainPeaks)}`,
);
console.log(
  `median   actors, exactly once (b) ${fmtRate(b).padStart(8)} transfers/s   peak RSS ${fmtMedianPeak(ourPeaks)}`,
);
console.log(`ratio    ${(b / a).toFixed(2)} (goal >= 0.50)`);

interface Measured {
  rate: number;
  ms: number;
  /** CPU time of this process, all threads, per transfer: pipeline, input producer and observer. */
  cpuUs: number;
  /** Input batches handled (a), or Kafka transactions that appended events (b). */
  units: number;
  /**
   * This process's peak RSS during the run. Both pipelines, the input producer and the observer
   * live in it throughout, and the actor host holds the states it restored: the figure is the
   * process's, and the difference between (a) and (b) is what each pipeline adds while it runs.
   */
  peakMiB: number | null;
}

function report(label: string, m: Measured) {
  console.log(
    `${label.padEnd(27)} ${fmtRate(m.rate).padStart(8)} transfers/s  ${(m.ms / 1000).toFixed(2).padStart(6)} s  ${m.cpuUs.toFixed(1).padStart(5)} µs CPU/transfer  ${String(m.units).padStart(5)} ${label.includes("(b)") ? "transactions" : "batches"}  peak RSS ${fmtMiB(m.peakMiB)}`,
  );
}

/** `count` transfers spread round-robin over the sessions, as they would arrive from the chain. */
function makeTransfers(ids: string[], count: number): Message[] {
  const now = Date.now();
  return Array.from({ length: count }, (_, i) => {
    const id = ids[i % ids.length] as string;
    return { key: id, value: codecs.transferObserved.encode(transferObserved(id, now, 1_000 + i)) };
  });
}

/** The input producer runs in a worker thread (see input-producer.ts), off the pipelines' thread. */
async function startInputProducer(): Promise<Worker> {
  // tsx's loader hooks are not inherited by workers: the worker registers its own, then loads the file.
  const file = JSON.stringify(new URL("./input-producer.ts", import.meta.url).href);
  const boot = `import("tsx/esm/api").then((tsx) => { tsx.register(); return import(${file}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { brokers: infra.brokers } });
  await new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
  });
  return worker;
}

async function produceAll(topic: string, messages: Message[]): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    input.once("message", (m: { done: boolean; error?: string }) =>
      m.done ? resolve() : reject(new Error(`input producer: ${m.error}`)),
    );
  });
  input.postMessage({ topic, messages });
  await done;
}

/** Produces `messages` and waits until `counter` has seen `expected` more output records. */
async function timed(
  topic: string,
  messages: Message[],
  counter: Counter,
  expected: number,
): Promise<Omit<Measured, "units">> {
  const target = counter.count() + expected;
  resetPeakRss();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const [, end] = await Promise.all([produceAll(topic, messages), counter.reached(target)]);
  const used = process.cpuUsage(cpu0);
  const ms = end - t0;
  return {
    rate: perSecond(messages.length, ms),
    ms,
    cpuUs: (used.user + used.system) / messages.length,
    peakMiB: peakRssMiB(),
  };
}

function newIds(n: number): string[] {
  return Array.from({ length: n }, newSessionId);
}

async function startPlain() {
  const from = await stableEndOffsets(kafka, PLAIN_IN);
  const consumer = kafkajs(kafka).consumer({
    groupId: `bench.ingest.plain.${randomUUID()}`,
    // The actor host's consumer settings (src/kafka/partitioned-consumer.ts), so only the work differs.
    readUncommitted: false,
    maxWaitTimeInMs: 50,
    maxBytesPerPartition: 1024 * 1024,
    sessionTimeout: 30_000,
    heartbeatInterval: 3000,
  });
  // The simplest producer that does the job: kafkajs defaults, acks from all replicas like ours.
  const out = kafkajs(kafka).producer();
  await out.connect();
  const keys = new Set<string>();
  const counter = await startCounter(PLAIN_OUT, keys);
  let batches = 0;
  await consumer.connect();
  await consumer.subscribe({ topic: PLAIN_IN, fromBeginning: true });
  await consumer.run({
    partitionsConsumedConcurrently: 8,
    // kafkajs defaults: the batch is resolved when this returns and its offsets committed then.
    eachBatch: async ({ batch }) => {
      if (batch.messages.length > 0) batches++;
      await out.send({
        topic: PLAIN_OUT,
        acks: -1,
        messages: batch.messages.map((m) => ({ key: m.key, value: m.value })),
      });
    },
  });
  for (const [partition, offset] of from) {
    consumer.seek({ topic: PLAIN_IN, partition, offset: offset.toString() });
  }
  return {
    async run(sessionCount: number, count: number): Promise<Measured> {
      const ids = newIds(sessionCount);
      for (const id of ids) keys.add(id);
      const input = makeTransfers(ids, count);
      const before = batches;
      const m = await timed(PLAIN_IN, input, counter, count);
      return { ...m, units: batches - before };
    },
    async stop() {
      await consumer.disconnect();
      await out.disconnect();
      await counter.stop();
    },
  };
}

async function startActors() {
  const cassandra = await connectCassandra(infra.cassandra, { migrate: true });
  const host = createSessionHost({
    codecs,
    kafka,
    snapshots: sessionSnapshots(createSnapshotTable(cassandra)),
    log: createLogger("warn", "bench"),
    snapshotEvery: config.SNAPSHOT_EVERY_EVENTS,
  });
  const keys = new Set<string>();
  const counter = await startCounter(TOPIC.sessionEvents, keys);
  await host.start();
  const journalEnd = async () => recordsBefore(await stableEndOffsets(kafka, TOPIC.sessionEvents));
  return {
    /** New sessions, created through the host and visible in the journal; not timed. */
    async create(sessionCount: number): Promise<string[]> {
      const ids = newIds(sessionCount);
      for (const id of ids) keys.add(id);
      const now = Date.now();
      const creates = ids.map((id) => ({
        key: id,
        value: codecs.sessionCommand.encode(createSession(id, now)),
      }));
      await timed(TOPIC.sessionCommands, creates, counter, sessionCount);
      return ids;
    },
    async run(ids: string[], count: number): Promise<Measured> {
      const input = makeTransfers(ids, count);
      const before = await journalEnd();
      const m = await timed(TOPIC.chainTransfers, input, counter, count);
      // Each committed transaction leaves one marker in the partition it appended to.
      return { ...m, units: (await journalEnd()) - before - count };
    },
    async stop() {
      await host.stop();
      await counter.stop();
      await cassandra.shutdown();
    },
  };
}

interface Counter {
  count(): number;
  /** Resolves with performance.now() when `n` records have been seen. */
  reached(n: number): Promise<number>;
  stop(): Promise<void>;
}

/** Counts the records keyed by one of `keys` that reach `topic` from now on (read_committed). */
async function startCounter(topic: string, keys: Set<string>): Promise<Counter> {
  const from = await stableEndOffsets(kafka, topic);
  const consumer = kafkajs(kafka).consumer({
    groupId: `bench.ingest.observer.${randomUUID()}`,
    maxWaitTimeInMs: 50,
  });
  let seen = 0;
  let progressAt = performance.now();
  const waiting: Array<{ n: number; resolve: (at: number) => void; reject: (e: Error) => void }> = [];
  // A pipeline that stops making progress must fail the run, not hold the suite lock for ever.
  const watchdog = setInterval(() => {
    if (waiting.length === 0 || performance.now() - progressAt < STALL_MS) return;
    const error = new Error(`no new record on ${topic} for ${STALL_MS / 1000} s (seen ${seen})`);
    for (const w of waiting.splice(0)) w.reject(error);
  }, 1000);
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) if (m.key && keys.has(m.key.toString())) seen++;
      const at = performance.now();
      progressAt = at;
      for (let i = waiting.length - 1; i >= 0; i--) {
        const w = waiting[i];
        if (w && seen >= w.n) {
          waiting.splice(i, 1);
          w.resolve(at);
        }
      }
    },
  });
  for (const [partition, offset] of from) consumer.seek({ topic, partition, offset: offset.toString() });
  return {
    count: () => seen,
    reached(n) {
      progressAt = performance.now();
      if (seen >= n) return Promise.resolve(progressAt);
      return new Promise((resolve, reject) => waiting.push({ n, resolve, reject }));
    },
    async stop() {
      clearInterval(watchdog);
      await consumer.disconnect();
    },
  };
}
