/**
 * The record-batch decoders alone, without a broker: the same fetched bytes (about 2 MiB of
 * SessionEvent records, the replay's fetch size, in batches as kafkajs's producer writes them)
 * decoded by kafkajs's consumer path (its Fetch response decoder, then its Batch) and by ours
 * (src/kafka/record-batches.ts), plain and gzip. What each costs per record, with no network, fold
 * or other thread in the figure. Prints figures; asserts nothing beyond both handing over every record.
 *
 *   npx tsx test/bench/record-batches.bench.ts [passes=300]
 */

import { loadavg } from "node:os";
import { CompressionTypes } from "kafkajs";
import { decodeRecordBatches } from "../../src/kafka/record-batches.ts";
import { codecs } from "../support/codecs.ts";
import { batchBytes, kafkajsMessages } from "../support/record-batch-bytes.ts";
import { depositObserved, fmtRate, median, newSessionId, sessionCreated } from "./workload.ts";

const [passes = 300] = process.argv.slice(2, 3).map(Number);
/** Records per batch: what kafkajs's producer put in one batch of the bench journal (10,000 per send over 8 partitions). */
const PER_BATCH = 1250;
/** Batches per fetched partition: ~2 MiB at ~440 bytes a record. */
const BATCHES = 4;

/** One partition's fetched bytes: sessions of a created event and deposits, keyed by session id. */
async function fetched(compression: CompressionTypes): Promise<Buffer> {
  const now = Date.now();
  const batches: Buffer[] = [];
  for (let b = 0; b < BATCHES; b++) {
    const ids = Array.from({ length: PER_BATCH / 10 }, newSessionId);
    const records = Array.from({ length: PER_BATCH }, (_, i) => {
      const id = ids[i % ids.length] as string;
      const version = Math.floor(i / ids.length) + 1;
      const event = version === 1 ? sessionCreated(id, now) : depositObserved(id, version, now, 1000 + b);
      return { key: Buffer.from(id), value: codecs.sessionEvent.encode(event) };
    });
    batches.push(await batchBytes({ base: b * PER_BATCH, records, compression }));
  }
  return Buffer.concat(batches);
}

const decoders: Record<string, (bytes: Buffer) => Promise<number>> = {
  "kafkajs (decodeMessages + Batch)": async (bytes) => (await kafkajsMessages(bytes, 0)).length,
  "ours (decodeRecordBatches)": async (bytes) => (await decodeRecordBatches(bytes, 0)).records.length,
};

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(", ");
console.log(
  `node ${process.version}, ${passes} passes of ${BATCHES * PER_BATCH} records; load average ${load()}`,
);
for (const [name, compression] of [
  ["plain", CompressionTypes.None],
  ["gzip", CompressionTypes.GZIP],
] as const) {
  const bytes = await fetched(compression);
  console.log(`\n${name}: ${(bytes.length / 2 ** 20).toFixed(2)} MiB fetched`);
  for (const [decoder, decode] of Object.entries(decoders)) {
    // Warm-up, then three timed runs (the median is printed): the JIT and the heap settle first.
    for (let i = 0; i < 20; i++) await decode(bytes);
    const runs: number[] = [];
    for (let run = 0; run < 3; run++) {
      const cpu0 = process.cpuUsage();
      let n = 0;
      for (let i = 0; i < passes; i++) n += await decode(bytes);
      const used = process.cpuUsage(cpu0);
      if (n !== passes * BATCHES * PER_BATCH) throw new Error(`${decoder} handed over ${n} records`);
      runs.push((used.user + used.system) / n);
    }
    const us = median(runs);
    console.log(
      `  ${decoder.padEnd(34)} ${us.toFixed(3)} µs CPU/record (runs ${runs.map((r) => r.toFixed(3)).join(", ")}), ${fmtRate(1e6 / us)} records/s of CPU`,
    );
  }
}
console.log(`\nload average at the end: ${load()}`);
