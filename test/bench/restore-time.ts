/**
 * Restore time of a killed actors process (issue 20, Performance; docs/RELIABILITY.md). Three
 * actors processes (src/cli.ts bundled, as in the fault proof) over a broker of the run's own and a
 * fresh keyspace of the environment's Cassandra; `sessions` CreateSession commands go onto
 * session.commands and the run waits until the actors have taken them all. Then one actors process
 * is killed with kill -9 and its replacement started at once, and a probe session is created on
 * every partition at the moment of the kill: a partition is served again when its probe's event is
 * in the journal. Prints, per partition, how long that took, and when the replacement was ready.
 * Sends no chain transaction, so it needs no e2e lock; it measures the machine's load too (printed).
 * The children run the service's default group session timeout (src/config.ts), not the tests'
 * shorter one, unless KAFKA_SESSION_TIMEOUT_MS names another: the takeover is mostly that timeout.
 *
 *   source .env-test && npx tsx test/bench/restore-time.ts 10000
 *   KAFKA_SESSION_TIMEOUT_MS=30000 npx tsx test/bench/restore-time.ts 10000   # the old default
 */
import { randomUUID } from "node:crypto";
import { loadavg } from "node:os";
import cassandra from "cassandra-driver";
import { parseConfig } from "../../src/config.ts";
import { ACTORS_GROUP } from "../../src/entities/session.ts";
import { createKafka, kafkajs } from "../../src/kafka/client.ts";
import { partitionOfKey } from "../../src/kafka/key-history.ts";
import { TOPIC } from "../../topics/catalogue.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { codecs } from "../support/codecs.ts";
import { bundleCli } from "../support/fault-proof/bundle.ts";
import { startThrowawayServer } from "../support/throwaway-servers.ts";
import { createSession } from "./workload.ts";

const sessions = Number(process.argv[2] ?? 10_000);
const PARTITIONS = 8;
const t0 = Date.now();
const say = (l: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${l}`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const [broker, cli] = await Promise.all([startThrowawayServer("kafka"), bundleCli()]);
  const keyspace = `restore_${Date.now()}`;
  const env = {
    KAFKA_BROKERS: broker.address,
    CASSANDRA_KEYSPACE: keyspace,
    SESSION_PARTITIONS: String(PARTITIONS),
    LOG_LEVEL: "warn",
    KAFKA_SESSION_TIMEOUT_MS: String(
      parseConfig({ KAFKA_SESSION_TIMEOUT_MS: process.env.KAFKA_SESSION_TIMEOUT_MS })
        .KAFKA_SESSION_TIMEOUT_MS,
    ),
  };
  say(`group session timeout ${env.KAFKA_SESSION_TIMEOUT_MS} ms`);
  const children: Child[] = [];
  const kafka = createKafka({ brokers: [broker.address], clientId: "restore-time" });
  const admin = kafkajs(kafka).admin();
  const producer = kafkajs(kafka).producer({ idempotent: true });
  const watcher = kafkajs(kafka).consumer({ groupId: `restore-time.${randomUUID()}`, maxWaitTimeInMs: 50 });
  try {
    const actors = (name: string) =>
      startChild(name, [cli, "actors"], { env, ready: /^actors\s+(.*)$/, timeoutMs: 900_000, tsx: false });
    children.push(await actors("actors-1"));
    children.push(...(await Promise.all([actors("actors-2"), actors("actors-3")])));
    say("3 actors processes up");
    await Promise.all([admin.connect(), producer.connect()]);
    for (let i = 0; i < sessions; i += 1000) {
      const now = Date.now();
      const messages = Array.from({ length: Math.min(1000, sessions - i) }, () => {
        const id = randomUUID();
        return { key: id, value: codecs.sessionCommand.encode(createSession(id, now)) };
      });
      await producer.send({ topic: TOPIC.sessionCommands, messages });
    }
    for (;;) {
      const lag = await actorsLag(admin);
      if (lag === 0) break;
      await sleep(1000);
    }
    say(`${sessions} sessions in the journal (the actors' lag on session.commands is 0)`);

    // The journal is watched from its end: a probe is served when its event arrives.
    const served = new Map<string, number>();
    await watcher.connect();
    await watcher.subscribe({ topic: TOPIC.sessionEvents, fromBeginning: false });
    const joined = new Promise<void>((r) => watcher.on(watcher.events.GROUP_JOIN, () => r()));
    await watcher.run({
      eachMessage: async ({ message }) => {
        const key = message.key?.toString();
        if (key && !served.has(key)) served.set(key, Date.now());
      },
    });
    await joined;
    const probe = async () => {
      const ids = Array.from({ length: PARTITIONS }, (_, p) => probeId(p));
      const now = Date.now();
      await producer.send({
        topic: TOPIC.sessionCommands,
        messages: ids.map((id) => ({ key: id, value: codecs.sessionCommand.encode(createSession(id, now)) })),
      });
      return { ids, at: now };
    };
    const answered = async (p: { ids: string[]; at: number }) => {
      while (!p.ids.every((id) => served.has(id))) await sleep(50);
      return p.ids.map((id) => (served.get(id) as number) - p.at);
    };
    const warm = await answered(await probe());
    say(`probes before the kill, per partition (ms): ${warm.join(", ")}`);

    const victim = children.shift() as Child;
    const load = loadavg()[0] ?? 0;
    const killedAt = Date.now();
    process.kill(victim.pid, "SIGKILL");
    const replaced = actors("actors-1b").then((c) => {
      children.push(c);
      return Date.now() - killedAt;
    });
    const after = await answered(await probe());
    say(
      `after kill -9 of actors-1, each partition served again after (ms): ${after.join(", ")}; the slowest ${Math.max(...after)} ms`,
    );
    say(`its replacement was ready (partitions restored) ${await replaced} ms after the kill`);
    say(`load average ${load.toFixed(2)} -> ${(loadavg()[0] ?? 0).toFixed(2)}`);
  } finally {
    await Promise.allSettled([watcher.disconnect(), producer.disconnect(), admin.disconnect()]);
    await Promise.allSettled(children.map((c) => c.stop()));
    await broker.remove();
    await dropKeyspace(keyspace);
  }
}

/** A fresh session id the producers put in partition `p`. */
function probeId(p: number): string {
  for (;;) {
    const id = randomUUID();
    if (partitionOfKey(id, PARTITIONS) === p) return id;
  }
}

async function actorsLag(admin: ReturnType<ReturnType<typeof kafkajs>["admin"]>): Promise<number> {
  const ends = await admin.fetchTopicOffsets(TOPIC.sessionCommands);
  const [group] = await admin.fetchOffsets({ groupId: ACTORS_GROUP, topics: [TOPIC.sessionCommands] });
  const done = new Map((group?.partitions ?? []).map((p) => [p.partition, Number(p.offset)]));
  return ends.reduce(
    (lag, e) => lag + Math.max(0, Number(e.high) - Math.max(0, done.get(e.partition) ?? 0)),
    0,
  );
}

async function dropKeyspace(keyspace: string) {
  const client = new cassandra.Client({
    contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? "127.0.0.1:19042").split(","),
    localDataCenter: "datacenter1",
  });
  await client.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`).catch(() => {});
  await client.shutdown();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
