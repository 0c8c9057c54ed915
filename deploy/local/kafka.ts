// Runs a single-node KRaft Kafka broker from Maven Central jars, detached from this process.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Kafka, logLevel } from "kafkajs";
import type { Log } from "./processes.ts";
import {
  ensureLib,
  isPortOpen,
  javaBin,
  logTail,
  mainClass,
  paths,
  retryUntil,
  runningPid,
  spawnDetached,
  withLock,
} from "./processes.ts";

export interface EnsureKafkaOptions {
  root: string;
  port?: number;
  log?: (line: string) => void;
}

export interface KafkaEndpoint {
  brokers: string[];
  started: boolean;
}

const PROBE_TOPIC = "__stack_probe";
const READY_TIMEOUT_MS = 90_000;

// Small heap: a test broker holds little data; G1 with short pauses keeps test latency flat.
const JVM_OPTS = [
  "-Xms256m",
  "-Xmx512m",
  "-XX:+UseG1GC",
  "-XX:MaxGCPauseMillis=20",
  "-XX:+ExitOnOutOfMemoryError",
  "-Djava.awt.headless=true",
];

function serverProperties(dataDir: string, port: number): string {
  const controllerPort = port + 1;
  return `# Written by deploy/local/kafka.ts on every start; edit that file instead.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${port}
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=${dataDir}

# Single node: every internal topic must live with one replica.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
default.replication.factor=1
min.insync.replicas=1

# Tests create their topics explicitly and want groups to form at once.
auto.create.topics.enable=false
group.initial.rebalance.delay.ms=0
# The service's members ask for a 3 s session (KAFKA_SESSION_TIMEOUT_MS) so a killed process's
# partitions are taken over within seconds; Kafka's default floor, 6 s, would refuse them to join.
group.min.session.timeout.ms=1000
num.partitions=1
offsets.topic.num.partitions=5
transaction.state.log.num.partitions=5

# Small files: many short-lived test topics should not preallocate much disk.
log.segment.bytes=16777216
log.index.size.max.bytes=1048576
offsets.topic.segment.bytes=16777216
transaction.state.log.segment.bytes=16777216
log.retention.hours=24
log.retention.check.interval.ms=60000
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=16777216

# Two cores: keep thread pools small.
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
background.threads=4
`;
}

// Plain pattern to stdout; the spawn redirects stdout into .local/logs/kafka.log.
const LOG4J2 = `status = warn
appender.out.type = Console
appender.out.name = out
appender.out.layout.type = PatternLayout
appender.out.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.out.ref = out
logger.request.name = kafka.request.logger
logger.request.level = WARN
logger.state.name = state.change.logger
logger.state.level = WARN
logger.controller.name = org.apache.kafka.controller
logger.controller.level = WARN
# Every component prints its whole config at INFO; once per start is already too much.
logger.config.name = org.apache.kafka.common.config.AbstractConfig
logger.config.level = WARN
`;

// Kafka's cluster ids are 16 random bytes in url-safe base64 without padding.
const newClusterId = () => randomBytes(16).toString("base64url");

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stdout}${stderr}`)) : resolvePromise(stdout),
    );
  });
}

async function waitReady(brokers: string[], root: string, pid: number | undefined, log: Log): Promise<void> {
  const kafka = new Kafka({
    clientId: "stack-probe",
    brokers,
    logLevel: logLevel.NOTHING,
    connectionTimeout: 2000,
    retry: { retries: 0 },
  });
  const died = () =>
    pid !== undefined && runningPid(root, "kafka") === undefined
      ? `broker process ${pid} exited; log tail:\n${logTail(root, "kafka")}`
      : undefined;

  const admin = kafka.admin();
  const started = Date.now();
  try {
    await retryUntil(
      "kafka did not answer listTopics",
      READY_TIMEOUT_MS,
      async () => {
        await admin.connect();
        await admin.listTopics();
      },
      died,
    );
    log(`kafka: broker answers (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    await admin.createTopics({
      topics: [{ topic: PROBE_TOPIC, numPartitions: 1, replicationFactor: 1 }],
      waitForLeaders: true,
    });
  } finally {
    await admin.disconnect();
  }

  // A committed transaction proves the transaction coordinator and its log are usable.
  const probe = new Kafka({ clientId: "stack-probe", brokers, logLevel: logLevel.NOTHING });
  await retryUntil(
    "kafka transactional probe failed",
    READY_TIMEOUT_MS,
    async () => {
      const producer = probe.producer({
        transactionalId: "stack-probe",
        idempotent: true,
        maxInFlightRequests: 1,
      });
      await producer.connect();
      try {
        const tx = await producer.transaction();
        await tx.send({ topic: PROBE_TOPIC, messages: [{ value: "probe" }] });
        await tx.commit();
      } finally {
        await producer.disconnect();
      }
    },
    died,
  );
  log(`kafka: transactions work (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

export async function ensureKafka(opts: EnsureKafkaOptions): Promise<KafkaEndpoint> {
  const log: Log = opts.log ?? (() => {});
  const fromEnv = process.env.KAFKA_BROKERS?.trim();
  if (fromEnv) {
    const brokers = fromEnv
      .split(",")
      .map((b) => b.trim())
      .filter(Boolean);
    log(`kafka: using KAFKA_BROKERS=${brokers.join(",")}`);
    return { brokers, started: false };
  }

  const root = resolve(opts.root);
  const port = opts.port ?? 19092;
  return withLock(root, "kafka", () => startOrReuse(root, port, log));
}

async function startOrReuse(root: string, port: number, log: Log): Promise<KafkaEndpoint> {
  const brokers = [`127.0.0.1:${port}`];

  // Reuse a broker that answers, or one of ours that is still starting.
  const existing = runningPid(root, "kafka");
  if (existing !== undefined || (await isPortOpen(port))) {
    log(`kafka: reusing broker on ${brokers[0]}${existing !== undefined ? ` (pid ${existing})` : ""}`);
    await waitReady(brokers, root, existing, log);
    return { brokers, started: false };
  }

  const lib = await ensureLib(root, "kafka", log);
  const home = paths(root).home("kafka");
  const dataDir = join(home, "data");
  const conf = join(home, "conf");
  const version = kafkaVersionIn(lib);
  setAsideDataOfOtherVersion(home, dataDir, version, log);
  mkdirSync(dataDir, { recursive: true });
  mkdirSync(conf, { recursive: true });
  const propsFile = join(conf, "server.properties");
  const log4jFile = join(conf, "log4j2.properties");
  writeFileSync(propsFile, serverProperties(dataDir, port));
  writeFileSync(log4jFile, LOG4J2);
  const classpath = ["-cp", join(lib, "*")];
  const logConfig = `-Dlog4j2.configurationFile=${log4jFile}`;

  // KRaft needs its metadata log formatted once; meta.properties marks a formatted dir.
  if (!existsSync(join(dataDir, "meta.properties"))) {
    log("kafka: formatting KRaft storage");
    await run(javaBin(), [
      logConfig,
      ...classpath,
      "kafka.tools.StorageTool",
      "format",
      // One "=" form: a base64url id may start with "-", which the tool would take for an option.
      `--cluster-id=${newClusterId()}`,
      "-c",
      propsFile,
    ]);
    writeFileSync(join(home, FORMATTED_BY), `${version}\n`);
  }

  const pid = spawnDetached(
    root,
    "kafka",
    javaBin(),
    [
      ...JVM_OPTS,
      logConfig,
      `-Dkafka.logs.dir=${paths(root).logs}`,
      ...classpath,
      mainClass.kafka,
      propsFile,
    ],
    home,
  );
  log(`kafka: started pid ${pid}, log ${paths(root).logFile("kafka")}`);
  await waitReady(brokers, root, pid, log);
  return { brokers, started: true };
}

/** Beside the data dir: the Kafka release that formatted it. */
const FORMATTED_BY = "formatted-by";

/** The broker's release, from its jar's name in the resolved lib (kafka-server-<version>.jar). */
export function kafkaVersionIn(lib: string): string {
  for (const file of readdirSync(lib)) {
    const m = /^kafka-server-(\d[\w.-]*)\.jar$/.exec(file);
    if (m?.[1]) return m[1];
  }
  throw new Error(`no kafka-server jar in ${lib}`);
}

/**
 * A data dir formatted by another Kafka release is moved aside, not opened: an older broker cannot
 * read a newer one's metadata log (the project moved from 4.4.0 to 4.2.1, DESIGN.md "Coordinators
 * cached"), and a local broker's data is rebuilt by the next run. Dirs formatted before the marker
 * existed were 4.4.0's.
 */
export function setAsideDataOfOtherVersion(home: string, dataDir: string, version: string, log: Log): void {
  if (!existsSync(join(dataDir, "meta.properties"))) return;
  const marker = join(home, FORMATTED_BY);
  const formattedBy = existsSync(marker) ? readFileSync(marker, "utf8").trim() : "4.4.0";
  if (formattedBy === version) return;
  const named = `${dataDir}-kafka-${formattedBy}`;
  const aside = existsSync(named) ? `${named}-${Date.now()}` : named;
  renameSync(dataDir, aside);
  log(`kafka: data formatted by Kafka ${formattedBy} moved to ${aside}; Kafka ${version} starts empty`);
}
