// A Solana indexer in a process of its own, for a test that kills it with SIGKILL: the chain entry,
// Cassandra keyspace, Kafka topic and burner come from the environment; it publishes TransferObserved
// to the topic as the indexer role does. With HOLD_AFTER_PUBLISH=1 the first publish that carries
// records never returns after reaching Kafka (so the checkpoint is never saved): the test kills it there.
import { setTimeout as sleep } from "node:timers/promises";
import { createChainAdapters } from "../../src/chains/adapters.ts";
import { parseChainList } from "../../src/chains/config.ts";
import { createPlainProducer } from "../../src/kafka/at-least-once.ts";
import { createKafka } from "../../src/kafka/client.ts";
import { singleObjectCodecs } from "../../src/kafka/codecs.ts";
import { connectCassandra } from "../../src/store/cassandra.ts";

const env = (name: string): string => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};

const parsed = parseChainList(JSON.parse(env("CHAIN_JSON")));
if (!parsed.ok) throw new Error(parsed.issues.join("; "));
const [adapter] = createChainAdapters(parsed.chains);
if (!adapter) throw new Error("no chain");
const cassandra = await connectCassandra(
  {
    contactPoints: env("CASSANDRA_CONTACT_POINTS").split(","),
    localDataCenter: "datacenter1",
    keyspace: env("TEST_KEYSPACE"),
  },
  { migrate: false },
);
const producer = createPlainProducer(
  createKafka({ brokers: env("KAFKA_BROKERS").split(","), clientId: "solana-ix" }),
);
await producer.connect();
const codecs = singleObjectCodecs();
const hold = process.env.HOLD_AFTER_PUBLISH === "1";
const indexer = adapter.createIndexer({
  cassandra,
  async publish(records) {
    await producer.send(
      env("TOPIC"),
      records.map((r) => ({ key: r.sessionId, value: codecs.transferObserved.encode(r) })),
    );
    console.log(`published ${records.length} ${records.map((r) => r.finality).join(",")}`);
    if (hold) await new Promise(() => {}); // on Kafka, never checkpointed: killed here
  },
  log: (msg, fields) => console.log(`log ${msg} ${JSON.stringify(fields)}`),
  signal: new AbortController().signal,
  pollMs: 100,
});
await indexer.watch([{ burner: env("BURNER"), sessionId: env("SESSION_ID") }]);
void indexer.run();
while (indexer.status().lastBlock === null) await sleep(50);
console.log(`ready ${indexer.status().lastBlock}`);
