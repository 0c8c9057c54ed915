import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ensureCassandra } from "../../deploy/local/cassandra.ts";
import { freePort } from "../../deploy/local/free-port.ts";
import { ensureKafka } from "../../deploy/local/kafka.ts";
import { isAlive, runningPid, type ServerName, sleep, stopProcess } from "../../deploy/local/processes.ts";

/**
 * A Kafka broker or a Cassandra node of a test's own, in a temporary root on free ports, for tests
 * that kill it: the shared servers every other test uses are never touched. The jars come from the
 * local stack's cache (.local/cache), so nothing is downloaded.
 */
export interface ThrowawayServer {
  name: ServerName;
  /** host:port, for KAFKA_BROKERS or CASSANDRA_CONTACT_POINTS. */
  address: string;
  /** `kill -9` of the server; resolves once the process is gone, with its pid. */
  kill(): Promise<number>;
  /** A clean stop (SIGTERM), keeping its data: a start after it skips a killed broker's log recovery. */
  stop(): Promise<void>;
  /** Starts the server again on the same data directory and port; resolves once it answers. */
  start(): Promise<void>;
  /**
   * When the last start first saw the server answer a request (the broker its metadata, the node a
   * CQL query), before the rest of the start's checks (a broker's transaction probe): the moment a
   * client could be served again.
   */
  answeredAt(): number;
  /** Stops it and deletes its root. */
  remove(): Promise<void>;
}

export async function startThrowawayServer(name: ServerName): Promise<ThrowawayServer> {
  const root = mkdtempSync(join(tmpdir(), `throwaway-${name}-`));
  mkdirSync(join(root, "logs"), { recursive: true });
  symlinkSync(resolve(".local/cache"), join(root, "cache"));
  // The broker takes its port and the next one (its KRaft controller); a node, its CQL and storage ports.
  const port = await freePort(name === "kafka" ? (p) => p + 1 : undefined);
  const storagePort = await freePort();
  let answeredAt = Number.NaN;
  const log = (line: string) => {
    if (/^(kafka: broker answers|cassandra: .* answers CQL)/.test(line)) answeredAt = Date.now();
  };
  const ensure: () => Promise<unknown> =
    name === "kafka"
      ? () => ensureKafka({ root, port, log })
      : () => ensureCassandra({ root, port, storagePort, log });
  const server: ThrowawayServer = {
    name,
    address: `127.0.0.1:${port}`,
    async kill() {
      const pid = runningPid(root, name);
      if (pid === undefined) throw new Error(`${name} is not running in ${root}`);
      process.kill(pid, "SIGKILL");
      while (isAlive(pid)) await sleep(50);
      return pid;
    },
    async stop() {
      await stopProcess(root, name, 30_000);
    },
    async start() {
      answeredAt = Number.NaN;
      await withoutServerEnv(ensure);
    },
    answeredAt: () => answeredAt,
    async remove() {
      await stopProcess(root, name, 10_000);
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await server.start();
  } catch (err) {
    await server.remove();
    throw err;
  }
  return server;
}

/**
 * ensureKafka and ensureCassandra use the servers the environment names when it names any (the
 * shared ones, in a test run): they are hidden while a throwaway one starts.
 */
async function withoutServerEnv<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { kafka: process.env.KAFKA_BROKERS, cassandra: process.env.CASSANDRA_CONTACT_POINTS };
  delete process.env.KAFKA_BROKERS;
  delete process.env.CASSANDRA_CONTACT_POINTS;
  try {
    return await fn();
  } finally {
    if (saved.kafka !== undefined) process.env.KAFKA_BROKERS = saved.kafka;
    if (saved.cassandra !== undefined) process.env.CASSANDRA_CONTACT_POINTS = saved.cassandra;
  }
}
