// A private Kafka broker for a test that must stop or restart its broker: its own root and free ports
// (the broker's and the controller's, port+1), the jars the stack already resolved. The stack's broker
// and every other engineer's are left alone.
import { existsSync, mkdirSync, symlinkSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { ensureKafka } from "../../deploy/local/kafka.ts";
import { stopKafka } from "../../deploy/local/processes.ts";
import { freePortPair } from "./solana-node.ts";

export interface PrivateKafka {
  brokers: string[];
  /** Stops the broker (SIGTERM, a controlled shutdown) and starts it again on the same data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export async function startPrivateKafka(stackRoot = ".local"): Promise<PrivateKafka> {
  const root = await mkdtemp(path.join(tmpdir(), "kafka-broker-"));
  const jars = path.resolve(stackRoot, "cache", "kafka", "lib");
  if (existsSync(jars)) {
    mkdirSync(path.join(root, "cache", "kafka"), { recursive: true });
    symlinkSync(jars, path.join(root, "cache", "kafka", "lib"));
  }
  const port = await freePortPair();
  const start = async () => {
    // ensureKafka answers KAFKA_BROKERS when it is set, before its first await: hide it for the call.
    const named = process.env.KAFKA_BROKERS;
    delete process.env.KAFKA_BROKERS;
    const starting = ensureKafka({ root, port });
    if (named !== undefined) process.env.KAFKA_BROKERS = named;
    await starting;
  };
  await start();
  return {
    brokers: [`127.0.0.1:${port}`],
    async restart() {
      await stopKafka(root);
      await start();
    },
    async stop() {
      await stopKafka(root);
      await rm(root, { recursive: true, force: true });
    },
  };
}
