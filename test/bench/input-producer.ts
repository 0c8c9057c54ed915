/**
 * The ingest benchmark's input producer, in a worker thread of its own: producing 50,000 records
 * costs about a second of CPU, which on the pipeline's thread would be measured as pipeline time.
 * Receives { topic, messages } jobs and answers each with { done: true } once the broker acked all.
 */
import { parentPort, workerData } from "node:worker_threads";
import { createKafka, kafkajs } from "../../src/kafka/client.ts";

/**
 * Chunks of this many records (~230 KB per partition, well under the broker's 1 MiB record batch
 * limit), all in flight at once: the pipelines, not the producer, set the pace.
 */
const CHUNK = 5000;

const { brokers } = workerData as { brokers: string[] };
const producer = kafkajs(createKafka({ brokers, clientId: "bench.ingest.input" })).producer();
await producer.connect();
parentPort?.on(
  "message",
  async (job: { topic: string; messages: Array<{ key: string; value: Uint8Array }> }) => {
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < job.messages.length; i += CHUNK) {
      const messages = job.messages.slice(i, i + CHUNK).map((m) => ({
        key: m.key,
        value: Buffer.from(m.value.buffer, m.value.byteOffset, m.value.byteLength),
      }));
      sends.push(producer.send({ topic: job.topic, acks: -1, messages }));
    }
    try {
      await Promise.all(sends);
      parentPort?.postMessage({ done: true });
    } catch (error) {
      parentPort?.postMessage({ done: false, error: String(error) });
    }
  },
);
parentPort?.postMessage({ ready: true });
