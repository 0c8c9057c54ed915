/**
 * Replay throughput against its honest baseline, side by side in one run: (a) a bare consume that
 * only counts the records of the journal, the fastest of a kafkajs consumer with two fetch sizes and
 * the replay's own batch reader (src/kafka/batch-reader.ts, the same Fetch requests and record-batch
 * decoder the replay uses), (b) our replay (replayJournal: each thread folds its partitions' records
 * as they stream, holding one state per open session and writing a session out once it is terminal
 * or past the bound), with its batch reader and, for comparison, with a kafkajs consumer as before.
 * All read the same scratch journal of SessionEvent records from offset zero, so the ratio is what
 * our decode and fold cost on top of the transport. Prints figures, peak RSS and the most states
 * held; asserts nothing.
 *
 *   npx tsx test/bench/replay.bench.ts [records=1000000] [rounds=3] [shape=open] [maxOpen] [readers=batches,kafkajs] [bare=all]
 *
 * readers: the replay's readers measured each round (the first is the one the ratio is given for).
 * bare: "all" (kafkajs's consumer with both fetch sizes, and the batch reader), or "batches" (the
 * batch reader alone, the fastest bare consume in every run so far: a large journal's run is
 * shorter by two full reads).
 *
 * rounds 0 writes the journal and stops.
 *
 * shape "open": every session stays open (created, then 1 to 17 deposits); "ended": the same, but
 * nine sessions in ten expire after their deposits, as most sessions of a real journal end. maxOpen:
 * the replay's bound on states held (replayJournal's default when left out).
 *
 * The journal (bench.replay.SHAPE.RECORDS, 8 partitions like session.events) is written on the first
 * run and reused while it holds exactly `records` records.
 */

import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ensureStack } from "../../deploy/local/stack.ts";
import { resolveInfra } from "../../src/app/infra.ts";
import { parseConfig } from "../../src/config.ts";
import type { SessionEvent } from "../../src/domain/events.ts";
import { readTopicBatches } from "../../src/kafka/batch-reader.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../src/kafka/client.ts";
import { ensureTopics, stableEndOffsets } from "../../src/kafka/topics.ts";
import type { StatesSummary } from "../../src/projections/journal-fold.ts";
import type { FoldCounts } from "../../src/projections/journal-stream.ts";
import { DEFAULT_MAX_OPEN_SESSIONS, replayJournal } from "../../src/projections/replay.ts";
import { REPLAY_FETCH, type ReplayReader } from "../../src/projections/replay-worker.ts";
import { codecs } from "../support/codecs.ts";
import { fmtMedianPeak, fmtMiB, peakRssMiB, resetPeakRss } from "./peak-rss.ts";
import { depositObserved, fmtRate, median, newSessionId, perSecond, sessionCreated } from "./workload.ts";

const PARTITIONS = 8; // session.events' count (SESSION_PARTITIONS default)
const [records = 1_000_000, rounds = 3] = process.argv.slice(2, 4).map(Number);
const shape = process.argv[4] ?? "open";
if (shape !== "open" && shape !== "ended") throw new Error(`shape is open or ended, not ${shape}`);
const maxOpen =
  process.argv[5] && process.argv[5] !== "-" ? Number(process.argv[5]) : DEFAULT_MAX_OPEN_SESSIONS;
const readers = (process.argv[6] ?? "batches,kafkajs").split(",") as ReplayReader[];
if (readers.some((r) => r !== "batches" && r !== "kafkajs"))
  throw new Error(`readers are batches and kafkajs`);
const [reader = "batches"] = readers;
const bareKinds = process.argv[7] ?? "all";
if (bareKinds !== "all" && bareKinds !== "batches")
  throw new Error(`bare is all or batches, not ${bareKinds}`);
const TOPIC = `bench.replay.${shape}.${records}`;
/** In an "ended" journal, the share of sessions that expire after their deposits. */
const ENDED = 0.9;
/** Deposits per session are uniform in 1..17: 9 on average, so ~records/10 sessions. */
const MAX_DEPOSITS = 17;
/** Sessions are interleaved within groups of this many, as concurrent sessions are in the live journal. */
const INTERLEAVE = 1000;
/**
 * The baseline runs with two fetch sizes each round and counts as fast as the faster: the readers'
 * small fetches (REPLAY_FETCH, src/projections/replay-worker.ts), which suit a replay holding many records, and large
 * ones, which suit a consumer that keeps nothing (fewer round trips).
 */
const FETCHES = {
  "16 MiB": { maxBytesPerPartition: 16 * 1024 * 1024, maxBytes: 64 * 1024 * 1024, maxWaitTimeInMs: 100 },
  replay: { ...REPLAY_FETCH, maxWaitTimeInMs: 100 },
};

// A full GC before each measurement, so neither pays for the 100,000 states the previous replay dropped.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const infra = await resolveInfra(parseConfig({ ...process.env, LOG_LEVEL: "warn" }), { ensureStack });
const kafka = createKafka({ brokers: infra.brokers, clientId: "bench.replay" });

const held = await journalSize(kafka);
if (held !== records) {
  if (held !== null) await deleteTopic(kafka);
  await ensureTopics(kafka, [
    { name: TOPIC, partitions: PARTITIONS, cleanupPolicy: "delete", retentionMs: -1 },
  ]);
  const t0 = performance.now();
  const bytes = await fill(kafka);
  const s = (performance.now() - t0) / 1000;
  console.log(
    `wrote ${records.toLocaleString("en")} SessionEvents (${(bytes / 2 ** 20).toFixed(0)} MiB of values) to ${TOPIC} in ${s.toFixed(1)} s`,
  );
} else {
  console.log(`reusing ${TOPIC}: ${records.toLocaleString("en")} records`);
}

if (rounds === 0) process.exit(0); // the journal alone: writing a large one takes minutes

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
console.log(
  `node ${process.version}, ${records.toLocaleString("en")} records (${shape}), ${rounds} rounds, at most ${maxOpen.toLocaleString("en")} states held; load average ${load()}\n`,
);
/** What the last parallel and one-thread replays' states add up to; the two must agree. */
let parallelSummary: StatesSummary | undefined;
let oneThreadSummary: StatesSummary | undefined;
let lastCounts: FoldCounts | undefined;
/** Each reader's last parallel summary: the readers must agree too. */
const readerSummaries = new Map<ReplayReader, StatesSummary>();
const bare: Measured[] = [];
const ours = new Map<ReplayReader, Measured[]>(readers.map((r) => [r, []]));
for (let round = 1; round <= rounds; round++) {
  const tried: Array<[string, Measured]> = [];
  for (const [name, fetch] of bareKinds === "all" ? Object.entries(FETCHES) : []) {
    gc();
    tried.push([`kafkajs ${name}`, await measure(() => bareConsume(kafka, fetch))]);
  }
  gc();
  tried.push(["batch reader", await measure(() => bareBatchRead(kafka))]);
  const [, a] = tried.reduce((x, y) => (y[1].rate > x[1].rate ? y : x));
  bare.push(a);
  console.log(`round ${round}: bare (${tried.map(([name, m]) => `${name}: ${show(m)}`).join(", ")})`);
  for (const r of readers) {
    gc();
    const b = await measure(() => replay(r));
    ours.get(r)?.push(b);
    console.log(
      `         replay (${r.padEnd(7)}) ${show(b)}   ratio to the fastest bare ${(b.rate / a.rate).toFixed(2)}`,
    );
  }
  console.log(
    `         ${lastCounts?.sessions.toLocaleString("en")} sessions, at most ${lastCounts?.peakHeld.toLocaleString("en")} states held, ${lastCounts?.reopened} taken back, ${lastCounts?.deferred} refolded`,
  );
}
const a = median(bare.map((m) => m.rate));
const cpu = (ms: Measured[]) => median(ms.map((m) => m.cpuUs)).toFixed(2);
console.log(
  `\nmedian   bare consume               ${fmtRate(a).padStart(9)} records/s   ${cpu(bare)} µs CPU/record   peak RSS ${fmtMedianPeak(bare.map((m) => m.peakMiB))} (the fastest of each round)`,
);
for (const r of readers) {
  const ms = ours.get(r) ?? [];
  const b = median(ms.map((m) => m.rate));
  console.log(
    `median   replay (${r.padEnd(7)})          ${fmtRate(b).padStart(9)} records/s   ${cpu(ms)} µs CPU/record   peak RSS ${fmtMedianPeak(ms.map((m) => m.peakMiB))}   ratio ${(b / a).toFixed(2)}${r === reader ? " (goal >= 0.80)" : ""}`,
  );
}
const disagreeing = readers.filter(
  (r) => JSON.stringify(readerSummaries.get(r)) !== JSON.stringify(parallelSummary),
);
console.log(
  `the readers' replays agree: ${disagreeing.length === 0 ? "yes" : `NO (${disagreeing.join(", ")})`}`,
);

// The same fold on one thread, once, for comparison, and a check that both give the same states.
gc();
const one = await measure(() => replayOnOneThread());
console.log(`\none thread                           ${show(one)}   ratio ${(one.rate / a).toFixed(2)}`);
const same = JSON.stringify(oneThreadSummary) === JSON.stringify(parallelSummary);
console.log(`states: ${JSON.stringify(parallelSummary)}`);
console.log(
  `parallel and one-thread replays agree: ${same ? "yes" : `NO (one thread: ${JSON.stringify(oneThreadSummary)})`}`,
);
console.log(`load average at the end: ${load()}`);

interface Measured {
  rate: number;
  /** CPU time of this process (user + system) per record: steadier than the rate on a shared machine. */
  cpuUs: number;
  /** The process's peak RSS during the run (the replay's worker threads included). */
  peakMiB: number | null;
}

async function measure(run: () => Promise<number>): Promise<Measured> {
  resetPeakRss();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const n = await run();
  const ms = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  return { rate: perSecond(n, ms), cpuUs: (used.user + used.system) / n, peakMiB: peakRssMiB() };
}

function show(m: Measured): string {
  return `${fmtRate(m.rate).padStart(9)} records/s (${m.cpuUs.toFixed(2)} µs CPU, peak RSS ${fmtMiB(m.peakMiB)})`;
}

/** Records held by the journal, or null when the topic does not exist. */
async function journalSize(k: KafkaClient): Promise<number | null> {
  const admin = kafkajs(k).admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(TOPIC)) return null;
    const offsets = await admin.fetchTopicOffsets(TOPIC);
    return offsets.reduce((n, o) => n + Number(o.high) - Number(o.low), 0);
  } finally {
    await admin.disconnect();
  }
}

/** A journal from an interrupted fill is thrown away whole: the records must form complete sessions. */
async function deleteTopic(k: KafkaClient): Promise<void> {
  const admin = kafkajs(k).admin();
  await admin.connect();
  try {
    await admin.deleteTopics({ topics: [TOPIC] });
    // Deletion is asynchronous in the broker; creating again too early fails.
    while ((await admin.listTopics()).includes(TOPIC)) await sleep(200);
    await sleep(1000);
  } finally {
    await admin.disconnect();
  }
}

/** Writes the journal: groups of sessions, each a SessionCreated then its DepositObserved events. */
async function fill(k: KafkaClient): Promise<number> {
  const producer = kafkajs(k).producer();
  await producer.connect();
  let written = 0;
  let bytes = 0;
  let block = 1_000_000;
  const pending: Array<{ key: string; value: Buffer }> = [];
  const flush = async () => {
    await producer.send({ topic: TOPIC, acks: -1, messages: pending.splice(0) });
  };
  try {
    while (written < records) {
      // One group: per-session event counts first, then the events round-robin across the group.
      const group: Array<{ id: string; events: number; ends: boolean }> = [];
      let planned = written;
      while (group.length < INTERLEAVE && planned < records) {
        const ends = shape === "ended" && Math.random() < ENDED;
        const events = Math.min(
          2 + Math.floor(Math.random() * MAX_DEPOSITS) + (ends ? 1 : 0),
          records - planned,
        );
        group.push({ id: newSessionId(), events, ends });
        planned += events;
      }
      const now = Date.now();
      for (let version = 1; version <= MAX_DEPOSITS + 2; version++) {
        block++;
        for (const s of group) {
          if (version > s.events) continue;
          const event =
            version === 1
              ? sessionCreated(s.id, now)
              : s.ends && version === s.events
                ? sessionExpired(s.id, version, now)
                : depositObserved(s.id, version, now, block);
          const value = codecs.sessionEvent.encode(event);
          bytes += value.length;
          pending.push({ key: s.id, value });
        }
        if (pending.length >= 10_000) await flush();
      }
      written = planned;
    }
    if (pending.length > 0) await flush();
    return bytes;
  } finally {
    await producer.disconnect();
  }
}

/** The baseline: a fresh group from offset zero, eachBatch, counting messages and nothing else. */
async function bareConsume(k: KafkaClient, fetch: (typeof FETCHES)[keyof typeof FETCHES]): Promise<number> {
  const consumer = kafkajs(k).consumer({ groupId: `bench.replay.bare.${randomUUID()}`, ...fetch });
  let count = 0;
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC, fromBeginning: true });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      count += batch.messages.length;
      if (count >= records) done();
    },
  });
  await finished;
  // Timed too: replayStates' reader also leaves its group before it returns.
  await consumer.disconnect();
  return count;
}

/** The batch reader alone on this thread, all partitions, the replay's fetch sizes, counting records. */
async function bareBatchRead(k: KafkaClient): Promise<number> {
  const ends = await stableEndOffsets(k, TOPIC);
  let count = 0;
  await readTopicBatches(k, {
    topic: TOPIC,
    from: new Map([...ends.keys()].map((p) => [p, 0n])),
    until: ends,
    fetch: REPLAY_FETCH,
    onBatch: (records) => {
      count += records.length;
    },
  });
  return count;
}

/** Ours: the replay's threads (this one and a worker per further core) fold their partitions and report what the states add up to. */
async function replay(with_: ReplayReader): Promise<number> {
  const { summary, counts } = await replayJournal(
    { brokers: infra.brokers, clientId: "bench.replay" },
    { kind: "summary" },
    { topic: TOPIC, maxOpenSessions: maxOpen, reader: with_ },
  );
  readerSummaries.set(with_, summary);
  if (with_ === reader) parallelSummary = summary;
  lastCounts = counts;
  if (summary.events !== records) console.log(`  (replay folded ${summary.events} events)`);
  return summary.events;
}

/** The same fold on this thread only: what one core gives. */
async function replayOnOneThread(): Promise<number> {
  const { summary } = await replayJournal(
    { brokers: infra.brokers, clientId: "bench.replay" },
    { kind: "summary" },
    { topic: TOPIC, workers: 1, maxOpenSessions: maxOpen, reader },
  );
  oneThreadSummary = summary;
  return summary.events;
}

function sessionExpired(sessionId: string, version: number, nowMs: number): SessionEvent {
  return {
    type: "SessionExpired",
    data: {},
    metadata: { sessionId, version, occurredAt: nowMs, commandId: randomUUID() },
  };
}
