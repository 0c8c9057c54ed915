/**
 * Loaded into a benchmark's child process (`node --import tsx --import ./test/bench/kafka-request-count.ts`):
 * counts the Kafka requests the process sends, by API, on every socket it opens to a port listed in
 * KAFKA_REQUEST_PORTS, and writes the totals to KAFKA_REQUEST_COUNTS_DIR/<pid>.json every 100 ms when
 * they changed, and at exit. The periodic write is asynchronous: a synchronous write and rename on a
 * busy disk blocked the measured process's event loop for milliseconds ten times a second, and its
 * profile showed them as a third of its busy time. kafkajs opens its connections with `net.connect`, looked up at each call, so wrapping it
 * here reaches every client of the process without a change to the service.
 */
import { mkdirSync, renameSync, writeFileSync } from "node:fs";
import { rename, writeFile } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { countWrites, type RequestCounts } from "../support/kafka-requests.ts";

const dir = process.env.KAFKA_REQUEST_COUNTS_DIR;
const ports = new Set((process.env.KAFKA_REQUEST_PORTS ?? "").split(",").filter(Boolean).map(Number));

if (dir && ports.size > 0) {
  const counts: RequestCounts = new Map();
  const connect = net.connect as (...args: unknown[]) => net.Socket;
  (net as { connect: unknown }).connect = (...args: unknown[]) => {
    const socket = connect(...args);
    const first = args[0];
    const port = typeof first === "object" && first !== null ? (first as { port?: unknown }).port : first;
    if (ports.has(Number(port))) countWrites(socket, counts);
    return socket;
  };
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.json`);
  // Written aside and renamed: the benchmark must never read a half-written file.
  const snapshot = () => JSON.stringify(Object.fromEntries(counts));
  let written = "";
  let writing = false;
  setInterval(() => {
    const text = snapshot();
    if (writing || text === written) return;
    writing = true;
    writeFile(`${file}.tmp`, text)
      .then(() => rename(`${file}.tmp`, file))
      .then(() => {
        written = text;
      })
      .catch(() => {})
      .finally(() => {
        writing = false;
      });
  }, 100).unref();
  // At exit only synchronous calls run; a pending asynchronous write is overtaken by this one.
  process.on("exit", () => {
    writeFileSync(`${file}.exit.tmp`, snapshot());
    renameSync(`${file}.exit.tmp`, file);
  });
}
