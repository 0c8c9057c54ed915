// Exactly once, end to end on the real servers: 1,000 sessions, 10,000 transfers and 1,000 executor
// results go through an actors process (a child, `tsx src/cli.ts actors`) that is killed with
// SIGKILL twice while it works, and a projector in this process. The journal, the outbox topics
// (gateway replies, webhooks) and the read model must hold every effect once.

import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import { writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { Kafka, logLevel } from "kafkajs";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import type { SessionCommand } from "../../../src/domain/commands.ts";
import type { SessionEvent } from "../../../src/domain/events.ts";
import { type Address, transferKey } from "../../../src/domain/types.ts";
import { ACTORS_GROUP, createSessionHost, sessionSnapshots } from "../../../src/entities/session.ts";
import { fromKafkajs, kafkajs } from "../../../src/kafka/client.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../../src/kafka/topics.ts";
import { createSessionReadModel } from "../../../src/projections/read-model.ts";
import type { TransferObserved } from "../../../src/records/chain-transfers.ts";
import { createSnapshotTable } from "../../../src/store/snapshots.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { stateOn, waitFor } from "../../support/actor-host.ts";
import { CHILD_ENV } from "../../support/child-process.ts";
import { codecs } from "../../support/codecs.ts";
import {
  createSessionCommand,
  drivenService,
  observedTransfer,
  randomAddress,
} from "../../support/driven-service.ts";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url));
const SESSIONS = 1000;
const PER_SESSION = 10;
const CHAIN_ID = 31_337;
/** Transfers re-published byte for byte (an indexer that crashed after publishing, before its checkpoint). */
const REPUBLISHED = 100;
/** The sessions belong to a merchant, so their detection sends a webhook through the outbox. */
const MERCHANT = `mer_eo_${randomUUID().slice(0, 8)}`;
/** The creates wait for replies addressed to this (test) gateway. */
const GATEWAY = `test.eo.${randomUUID()}`;

const address = randomAddress;

interface TestSession {
  id: string;
  burner: Address;
  token: Address;
  transfers: TransferObserved[];
}

function makeSessions(): TestSession[] {
  return Array.from({ length: SESSIONS }, (_, s) => {
    const id = randomUUID();
    const burner = address();
    const token = address();
    const transfers = Array.from(
      { length: PER_SESSION },
      (_, i): TransferObserved =>
        observedTransfer(id, {
          burner,
          chainId: CHAIN_ID,
          token,
          // distinct per transfer, so a doubled or missing one changes the sum
          amount: BigInt(s * PER_SESSION + i + 1) * 1_000_003n,
          logIndex: i % 3,
          blockNumber: BigInt(1_000 + i),
        }),
    );
    return { id, burner, token, transfers };
  });
}

function createCommand(s: TestSession): SessionCommand {
  // far ahead: no expiry timer may interfere
  const expiresAt = Math.floor(Date.now() / 1000) + 24 * 3600;
  const command = createSessionCommand(s.id, {
    flow: "checkout",
    merchantId: MERCHANT,
    burner: s.burner,
    expiresAt,
  });
  command.metadata.replyTo = { gatewayId: GATEWAY, correlationId: s.id };
  return command;
}

/** An executor result for a command the session never sent: refused, it must change nothing. */
function strayResult(s: TestSession): Buffer {
  return codecs.executorResult.encode({
    commandId: `stray:${s.id}`,
    sessionId: s.id,
    chainId: CHAIN_ID,
    occurredAt: Date.now(),
    result: { type: "TransactionSubmitted", txHash: `0x${"ab".repeat(32)}` },
  });
}

/** `tsx src/cli.ts actors` as a child; node --import tsx, so the pid we kill is the service itself. */
function startActors(name: string) {
  const output: string[] = [];
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "src/cli.ts", "actors"], {
    cwd: ROOT,
    // snapshots as often as the host allows, so a restore after a kill can start from a recent one
    env: { ...process.env, ...CHILD_ENV, LOG_LEVEL: "warn", SNAPSHOT_EVERY_EVENTS: "400" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let exited = false;
  const exit = once(child, "exit").then(() => {
    exited = true;
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      output.push(chunk.toString());
      if (/^actors\s/m.test(output.join(""))) resolve();
    });
    child.stderr?.on("data", (chunk: Buffer) => output.push(chunk.toString()));
    void exit.then(() => reject(new Error(`actors ${name} exited before it was ready:\n${output.join("")}`)));
  });
  return {
    name,
    ready,
    output,
    async kill() {
      if (!exited) {
        child.kill("SIGKILL");
        await exit;
      }
      // kept for a look after the run (warnings, failed transactions, restores)
      await writeFile(path.join(ROOT, ".local/logs", `exactly-once-actors-${name}.log`), output.join(""));
    },
    /** SIGTERM: the process leaves the group, so the next suite's host need not wait for its session to time out. */
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");
        await Promise.race([exit, sleep(20_000)]);
      }
      await this.kill();
    },
  };
}
type Actors = ReturnType<typeof startActors>;

// The projector runs here; the actors run as child processes started by the test.
const fx = drivenService({ roles: ["projector"] });
const children: Actors[] = [];

// Registered after drivenService's: after-hooks run in reverse, so the children stop first.
afterAll(async () => {
  for (const c of children) await c.stop();
});

/** Records of the actors' input topics not yet committed by the group (its lag). */
async function actorsLag(): Promise<{ lag: bigint; committed: bigint }> {
  const admin = kafkajs(fx.service.kafka).admin();
  await admin.connect();
  try {
    let lag = 0n;
    let committed = 0n;
    for (const topic of [TOPIC.sessionCommands, TOPIC.chainTransfers, TOPIC.executorResults]) {
      const ends = await admin.fetchTopicOffsets(topic);
      const [group] = await admin.fetchOffsets({ groupId: ACTORS_GROUP, topics: [topic] });
      for (const e of ends) {
        const c = BigInt(group?.partitions.find((p) => p.partition === e.partition)?.offset ?? "-1");
        const done = c >= 0n ? c : BigInt(e.low);
        lag += BigInt(e.high) - done;
        committed += done;
      }
    }
    return { lag, committed };
  } finally {
    await admin.disconnect();
  }
}

/** Produces transfers in paced chunks, the way an indexer streams them. */
async function stream(values: Buffer[], keys: string[], chunk = 200, pauseMs = 40) {
  for (let i = 0; i < values.length; i += chunk) {
    const messages = values.slice(i, i + chunk).map((value, j) => ({ key: keys[i + j] as string, value }));
    await fx.producer.send(TOPIC.chainTransfers, messages);
    await sleep(pauseMs);
  }
}

/**
 * A read_uncommitted reader of session.events from `from`: it sees records as soon as they are
 * appended, inside transactions that may still commit or abort. It counts this test's records and
 * can SIGKILL an actors process the moment that process has appended records: inside a transaction.
 */
async function tailJournal(from: Map<number, bigint>, mine: (e: SessionEvent) => boolean) {
  const consumer = kafkajs(fx.service.kafka).consumer({
    groupId: `test.eo.uncommitted.${randomUUID()}`,
    readUncommitted: true,
    maxWaitTimeInMs: 20,
  });
  const position = new Map(from);
  let seen = 0;
  let trigger: { armedAt: number; after: number; fire: () => void } | null = null;
  await consumer.connect();
  await consumer.subscribe({ topic: TOPIC.sessionEvents, fromBeginning: true });
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    position.set(payload.partition, BigInt(payload.lastOffset) + 1n);
  });
  await consumer.run({
    autoCommit: false,
    eachBatch: async ({ batch }) => {
      for (const m of batch.messages) {
        if (!m.value || !mine(codecs.sessionEvent.decode(m.value))) continue;
        seen++;
        if (trigger && seen - trigger.armedAt >= trigger.after) {
          trigger.fire();
          trigger = null;
        }
      }
    },
  });
  for (const [partition, offset] of from)
    consumer.seek({ topic: TOPIC.sessionEvents, partition, offset: String(offset) });
  return {
    /** Records of this test appended so far, committed or not. */
    seen: () => seen,
    /** SIGKILLs `actors` once it has appended `after` more records of this test. */
    async killAfterWrites(actors: Actors, after: number): Promise<void> {
      await new Promise<void>((resolve) => {
        trigger = { armedAt: seen, after, fire: () => resolve(actors.kill()) };
      });
    },
    /** Waits until the reader has read up to `ends` (no transaction may be open by then). */
    async caughtUp(ends: Map<number, bigint>) {
      await waitFor(
        "the read_uncommitted reader",
        async () => ([...ends].every(([p, end]) => (position.get(p) ?? 0n) >= end) ? true : undefined),
        60_000,
      );
    },
    stop: () => consumer.disconnect(),
  };
}

describe("exactly once across SIGKILLs of the actors process", () => {
  it("applies every command once and sends every outbox message once: 1,000 sessions, 10,000 transfers, 1,000 executor results, two kills, re-published duplicates", async () => {
    const t0 = Date.now();
    const mark = (label: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${label}`);
    const sessions = makeSessions();
    const mine = new Map(sessions.map((s) => [s.id, s]));
    const from = await stableEndOffsets(fx.service.kafka, TOPIC.sessionEvents);
    const fromWebhooks = await stableEndOffsets(fx.service.kafka, TOPIC.webhookEvents);
    const fromReplies = await stableEndOffsets(fx.service.kafka, TOPIC.gatewayReplies);

    const tail = await tailJournal(from, (e) => mine.has(e.metadata.sessionId));
    const a = startActors("A");
    children.push(a);
    await a.ready;
    mark("actors A started");

    await fx.producer.send(
      TOPIC.sessionCommands,
      sessions.map((s) => ({ key: s.id, value: codecs.sessionCommand.encode(createCommand(s)) })),
    );
    // A transfer must not overtake its session's creation (the indexer only watches created burners).
    await waitFor(
      "the sessions to be created",
      async () => ((await actorsLag()).lag === 0n ? true : undefined),
      300_000,
    );
    mark("1,000 sessions created");

    // Round-robin over sessions, so every partition sees traffic the whole time.
    const all = Array.from({ length: PER_SESSION }, (_, i) =>
      sessions.map((s) => s.transfers[i] as TransferObserved),
    ).flat();
    const values = all.map((t) => codecs.transferObserved.encode(t));
    const keys = all.map((t) => t.sessionId);
    const republished = Array.from({ length: REPUBLISHED }, (_, i) =>
      Math.floor((i * all.length) / REPUBLISHED / 2),
    );
    const again = () => ({
      values: republished.map((i) => values[i] as Buffer),
      keys: republished.map((i) => keys[i] as string),
    });

    // Phase 1: A processes while the stream runs, and is SIGKILLed as soon as it has appended
    // records of a new transaction (while it is open) after 2,500 transfers are out.
    await stream(values.slice(0, 2500), keys.slice(0, 2500));
    await Promise.all([tail.killAfterWrites(a, 1), stream(values.slice(2500, 4000), keys.slice(2500, 4000))]);
    mark(
      `actors A killed (SIGKILL) inside a transaction; ${(await actorsLag()).lag} input records not committed`,
    );

    // Phase 2: B starts; it can only join once A's group session has timed out. Meanwhile the
    // stream goes on, with byte-identical copies of transfers A already processed. Once B has
    // caught up, it is SIGKILLed inside a transaction while it keeps up with the live stream.
    const b = startActors("B");
    children.push(b);
    await b.ready;
    const dupes1 = again();
    await stream(dupes1.values, dupes1.keys);
    await fx.producer.send(
      TOPIC.executorResults,
      sessions.map((s) => ({ key: s.id, value: strayResult(s) })),
    );
    await stream(values.slice(4000, 5000), keys.slice(4000, 5000));
    await waitFor("B to catch up", async () => ((await actorsLag()).lag === 0n ? true : undefined), 300_000);
    mark("actors B caught up");
    await Promise.all([
      tail.killAfterWrites(b, 1500),
      stream(values.slice(5000, 8000), keys.slice(5000, 8000)),
    ]);
    mark(
      `actors B killed (SIGKILL) inside a transaction; ${(await actorsLag()).lag} input records not committed`,
    );

    // Phase 3: C finishes the stream, with the same duplicates once more.
    const c = startActors("C");
    children.push(c);
    await c.ready;
    await stream(values.slice(8000), keys.slice(8000));
    const dupes2 = again();
    await stream(dupes2.values, dupes2.keys);
    await waitFor(
      "the actors to commit all input",
      async () => ((await actorsLag()).lag === 0n ? true : undefined),
      300_000,
    );
    mark("actors C committed all input");

    // The journal: read_committed from the offsets before the test.
    const journal = new Map<string, SessionEvent[]>();
    await readTopic(fx.service.kafka, {
      topic: TOPIC.sessionEvents,
      from,
      onBatch: (records) => {
        for (const r of records) {
          if (!r.value) continue;
          const e = codecs.sessionEvent.decode(r.value);
          if (!mine.has(e.metadata.sessionId)) continue;
          const list = journal.get(e.metadata.sessionId) ?? [];
          list.push(e);
          journal.set(e.metadata.sessionId, list);
        }
      },
    });
    const events = [...journal.values()].flat();
    const count = (type: SessionEvent["type"]) => events.filter((e) => e.type === type).length;
    expect(count("SessionCreated")).toBe(SESSIONS);
    expect(count("DepositObserved")).toBe(SESSIONS * PER_SESSION);
    expect(events.length).toBe(SESSIONS * (1 + PER_SESSION));
    const observed = events.flatMap((e) =>
      e.type === "DepositObserved" ? [transferKey(e.data.transfer)] : [],
    );
    expect(new Set(observed).size).toBe(observed.length);
    expect(observed.sort()).toEqual(all.map((t) => transferKey(t)).sort());
    const badVersions = sessions.filter((s) => {
      const versions = (journal.get(s.id) ?? []).map((e) => e.metadata.version);
      return versions.join(",") !== Array.from({ length: PER_SESSION + 1 }, (_, i) => i + 1).join(",");
    });
    expect(badVersions.map((s) => s.id)).toEqual([]);

    // The outbox: one reply per create, one payment.detected per session, none lost, none doubled.
    const outbox = async <T>(
      topic: string,
      from: Map<number, bigint>,
      decode: (v: Buffer) => T,
    ): Promise<T[]> => {
      const out: T[] = [];
      await readTopic(fx.service.kafka, {
        topic,
        from,
        onBatch: (records) => {
          for (const r of records) if (r.value) out.push(decode(r.value));
        },
      });
      return out;
    };
    const replies = (
      await outbox(TOPIC.gatewayReplies, fromReplies, (v) => codecs.gatewayReply.decode(v))
    ).filter((r) => r.gatewayId === GATEWAY);
    expect(replies.map((r) => r.correlationId).sort()).toEqual(sessions.map((s) => s.id).sort());
    expect(replies.every((r) => r.code === null && r.session?.version === 1)).toBe(true);
    const webhooks = (
      await outbox(TOPIC.webhookEvents, fromWebhooks, (v) => codecs.webhookEvent.decode(v))
    ).filter((w) => w.merchantId === MERCHANT);
    expect(webhooks.map((w) => w.idempotencyKey).sort()).toEqual(
      sessions.map((s) => `${s.id}:payment.detected`).sort(),
    );
    mark(`outbox: ${replies.length} replies, ${webhooks.length} webhooks, each once`);

    // The kills hit open transactions: their records are in the log, no read_committed reader saw them.
    await tail.caughtUp(await stableEndOffsets(fx.service.kafka, TOPIC.sessionEvents));
    const aborted = tail.seen() - events.length;
    mark(`session.events holds ${aborted} records of this test from aborted transactions`);
    expect(aborted).toBeGreaterThan(0);
    await tail.stop();

    // The read model, once the projector has caught up.
    const readModel = createSessionReadModel(fx.service.cassandra);
    const rows = await waitFor(
      "the projector to reach version 11 everywhere",
      async () => {
        const found = await Promise.all(sessions.map((s) => readModel.get(s.id)));
        return found.every((r) => r?.version === PER_SESSION + 1) ? found : undefined;
      },
      180_000,
      1000,
    );
    mark("read model at version 11 for every session");
    const wrong = sessions.flatMap((s, i) => {
      const row = rows[i];
      const sum = s.transfers.reduce((acc, t) => acc + t.amount, 0n);
      const ok =
        row?.version === PER_SESSION + 1 &&
        row.view.status === "detected" &&
        row.view.deposits.length === PER_SESSION &&
        row.view.detected_amount === sum.toString() &&
        row.view.detected_token === s.token;
      return ok ? [] : [{ id: s.id, row: row?.view }];
    });
    expect(wrong.slice(0, 3)).toEqual([]);
    await c.stop();
    mark("done");
    // Two group session timeouts (30 s each: a SIGKILLed member is only dropped then) and three
    // restores of the shared journal's partitions dominate the run time.
  }, 900_000);
});

const API_INIT_PRODUCER_ID = 22;
const API_END_TXN = 26;

/**
 * A TCP relay in front of the broker that, once armed, holds back the next EndTxn request and
 * delivers it late: just before the next InitProducerId that any connection sends. That is a commit
 * whose outcome the client cannot know (its request times out) landing after the client gave up
 * on it, the delayed-commit case of Jepsen's 2024 analysis. Everything else passes unchanged.
 */
async function startLateCommitRelay(broker: { host: string; port: number }) {
  let armed = false;
  let held: { frame: Buffer; upstream: net.Socket } | null = null;
  let delivered = () => {};
  const deliveredLate = new Promise<void>((resolve) => {
    delivered = resolve;
  });
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(broker.port, broker.host);
    sockets.add(client).add(upstream);
    upstream.on("data", (d) => client.write(d));
    upstream.on("close", () => client.destroy());
    upstream.on("error", () => client.destroy());
    client.on("error", () => {});
    let pending = Buffer.alloc(0);
    let queue = Promise.resolve();
    const forward = async (frame: Buffer) => {
      const apiKey = frame.readInt16BE(4);
      if (apiKey === API_END_TXN && armed) {
        armed = false;
        held = { frame, upstream };
        return;
      }
      if (apiKey === API_INIT_PRODUCER_ID && held) {
        const late = held;
        held = null;
        late.upstream.write(late.frame);
        delivered();
        await sleep(500); // the coordinator completes that commit before it sees the InitProducerId
      }
      upstream.write(frame);
    };
    client.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
        const frame = pending.subarray(0, 4 + pending.readInt32BE(0));
        pending = pending.subarray(frame.length);
        queue = queue.then(() => forward(frame));
      }
    });
    // A client that gave up on its request closes the connection; the request is still on the way.
    client.on("close", () => {
      void queue.then(async () => {
        if (held?.upstream === upstream) await deliveredLate;
        await sleep(1000);
        upstream.end();
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    /** For kafkajs: every connection, whatever broker address the metadata names, goes through the relay. */
    socketFactory: ({ onConnect }: { onConnect: () => void }) => {
      const socket = net.connect({ host: "127.0.0.1", port }, onConnect);
      socket.setKeepAlive(true, 60_000);
      return socket;
    },
    arm: () => {
      armed = true;
    },
    deliveredLate,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe("exactly once when a commit's outcome is unknown", () => {
  it("a commit that lands after its request timed out is neither lost nor applied twice", async () => {
    const [host, port] = (fx.service.stack.kafka.brokers[0] ?? "127.0.0.1:19092").split(":");
    const relay = await startLateCommitRelay({ host: host ?? "127.0.0.1", port: Number(port) });
    // kafkajs directly: the service's client factory offers no socket factory, and the request
    // timeout must be shorter than the delay of the held commit.
    const kafka = new Kafka({
      clientId: "test.late-commit",
      brokers: fx.service.stack.kafka.brokers,
      requestTimeout: 2000,
      socketFactory: relay.socketFactory,
      retry: { initialRetryTime: 100, retries: 8 },
      logLevel: logLevel.NOTHING,
    });
    const warnings: Array<Record<string, unknown>> = [];
    const log = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    const actors = createSessionHost({
      codecs,
      kafka: fromKafkajs(kafka),
      snapshots: sessionSnapshots(createSnapshotTable(fx.service.cassandra)),
      log,
      snapshotEvery: 5000,
      timerIntervalMs: 3_600_000,
    });
    const from = await stableEndOffsets(fx.service.kafka, TOPIC.sessionEvents);
    const [session] = makeSessions();
    if (!session) throw new Error("no session");
    try {
      await actors.start();
      await waitFor(
        "the host to restore every partition",
        async () => (actors.owned().length === fx.service.config.SESSION_PARTITIONS ? true : undefined),
        300_000,
      );
      await fx.producer.send(TOPIC.sessionCommands, [
        { key: session.id, value: codecs.sessionCommand.encode(createCommand(session)) },
      ]);
      await waitFor("the session", async () => (stateOn(actors, session.id) ? true : undefined), 60_000);
      // Nothing else in flight: the EndTxn the relay holds must be this test's transaction.
      await waitFor(
        "no other input",
        async () => ((await actorsLag()).lag === 0n ? true : undefined),
        120_000,
      );

      relay.arm();
      const [first] = session.transfers;
      if (!first) throw new Error("no transfer");
      await fx.producer.send(TOPIC.chainTransfers, [
        { key: session.id, value: codecs.transferObserved.encode(first) },
      ]);
      await relay.deliveredLate;
      // The late commit moves the input offset at once; the host learns of it only after its
      // recovery, and a host that had re-run the batch would commit a second event by then.
      await waitFor(
        "the host to see the deposit",
        async () => (stateOn(actors, session.id)?.version === 2 ? true : undefined),
        60_000,
      );
      await waitFor(
        "the actors to commit all input",
        async () => ((await actorsLag()).lag === 0n ? true : undefined),
        60_000,
      );
      await sleep(2000);
      expect(stateOn(actors, session.id)?.version).toBe(2);
      const failed = warnings.filter((w) => w.msg === "transaction failed; re-reading the journal");
      expect(failed.map((w) => (w.err as { indefinite?: boolean })?.indefinite)).toEqual([true]);
    } finally {
      await actors.stop();
      await relay.close();
    }

    const journal: SessionEvent[] = [];
    await readTopic(fx.service.kafka, {
      topic: TOPIC.sessionEvents,
      from,
      onBatch: (records) => {
        for (const r of records) if (r.value) journal.push(codecs.sessionEvent.decode(r.value));
      },
    });
    const mineOnly = journal.filter((e) => e.metadata.sessionId === session.id);
    expect(mineOnly.map((e) => [e.type, e.metadata.version])).toEqual([
      ["SessionCreated", 1],
      ["DepositObserved", 2],
    ]);
  }, 600_000);
});
