/**
 * Encode/decode throughput of the topic codecs, and of bare avsc on the same records for comparison
 * (the difference is our mapping plus the zod checks). Prints figures; asserts nothing.
 *
 *   npx tsx test/bench/codecs.bench.ts [replayEvents=1000000]
 */
import { singleObjectWire } from "../../src/kafka/avro.ts";
import { type Codec, createCodecs } from "../../src/kafka/codecs.ts";
import { type Gen, generator } from "../support/generate.ts";

const SAMPLES = 2_000;
const MIN_MS = 1_000;

function rate(label: string, items: number, run: () => void): number {
  run(); // warm-up: let the JIT settle before measuring
  let done = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < MIN_MS) {
    run();
    done += items;
    elapsed = performance.now() - start;
  }
  const perSecond = (done / elapsed) * 1000;
  console.log(
    `${label.padEnd(34)} ${Math.round(perSecond).toLocaleString("en").padStart(11)} /s  ${((1000 * 1000) / perSecond).toFixed(2).padStart(7)} µs`,
  );
  return perSecond;
}

const wire = singleObjectWire();
const codecs = createCodecs(wire);

function bench<T>(name: string, schema: string, codec: Codec<T>, make: (g: Gen) => T): void {
  const values = Array.from({ length: SAMPLES }, (_, i) => make(generator(i + 1)));
  const bytes = values.map((v) => codec.encode(v));
  const avg = bytes.reduce((n, b) => n + b.length, 0) / bytes.length;
  console.log(`\n${name} (${SAMPLES} distinct values, ${Math.round(avg)} bytes on average)`);
  rate("  codec encode", SAMPLES, () => {
    for (const v of values) codec.encode(v);
  });
  rate("  codec decode", SAMPLES, () => {
    for (const b of bytes) codec.decode(b);
  });
  const serde = wire.serde(schema);
  const raw = bytes.map((b) => serde.decode(b));
  rate("  bare avsc encode (same framing)", SAMPLES, () => {
    for (const v of raw) serde.encode(v);
  });
  rate("  bare avsc decode (same framing)", SAMPLES, () => {
    for (const b of bytes) serde.decode(b);
  });
}

console.log(`node ${process.version}, ${process.arch}`);
bench("SessionEvent", "settlement.v1.SessionEvent", codecs.sessionEvent, (g) => g.event());
bench("SessionCommand", "settlement.v1.SessionCommand", codecs.sessionCommand, (g) => g.command());
bench("TransferObserved", "settlement.v1.TransferObserved", codecs.transferObserved, (g) =>
  g.transferObserved(),
);
bench("SessionState", "settlement.v1.SessionState", codecs.sessionState, (g) => g.sessionState());
bench("GatewayReply", "settlement.v1.GatewayReply", codecs.gatewayReply, (g) => g.gatewayReply());

// A replay decodes the journal once, start to end.
const replay = Number(process.argv[2] ?? 1_000_000);
const journal = Array.from({ length: SAMPLES }, (_, i) =>
  codecs.sessionEvent.encode(generator(i + 1).event()),
);
const start = performance.now();
for (let i = 0; i < replay; i++) codecs.sessionEvent.decode(journal[i % SAMPLES] as Buffer);
const seconds = (performance.now() - start) / 1000;
console.log(`\nreplay: decoded ${replay.toLocaleString("en")} SessionEvents in ${seconds.toFixed(2)} s`);
