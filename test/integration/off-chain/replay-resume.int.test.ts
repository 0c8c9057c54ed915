// A replay into a read-model table on the real stack: a journal with more sessions open at once than
// the replay may hold (so states are written out and read back from Cassandra), sessions that end and
// some that go on after ending. Rebuilt whole by two threads, and stopped half way then resumed by
// one: both tables hold exactly the full fold's states, and the resumed replay read only what was
// left after its committed positions.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../../deploy/local/stack.ts";
import { resolveInfra } from "../../../src/app/infra.ts";
import { parseConfig } from "../../../src/config.ts";
import { evolve } from "../../../src/domain/evolve.ts";
import type { SessionState } from "../../../src/domain/types.ts";
import { createKafka, type KafkaClient, kafkajs } from "../../../src/kafka/client.ts";
import { ensureTopics } from "../../../src/kafka/topics.ts";
import { createSessionReadModel } from "../../../src/projections/read-model.ts";
import { rebuildReadModel } from "../../../src/projections/replay.ts";
import {
  type CassandraClient,
  type CassandraSettings,
  connectCassandra,
} from "../../../src/store/cassandra.ts";
import { replayPositions } from "../../../src/store/replay-positions.ts";
import { type Journal, journalOf } from "../../support/session-journal.ts";

const TOPIC = `test.replay.${randomUUID().slice(0, 8)}`;
const PARTITIONS = 4;
/** Fewer than the sessions open at once (about 4 partitions x 12 interleaved): some are read back. */
const MAX_OPEN = 24;
let kafka: KafkaClient;
let brokers: string[];
let cassandraSettings: CassandraSettings;
let cassandra: CassandraClient;
let journal: Journal;
let expected: Map<string, SessionState>;
const tables: string[] = [];

beforeAll(async () => {
  await ensureStack({ root: ".local" });
  const infra = await resolveInfra(parseConfig({ ...process.env }), {});
  brokers = infra.brokers;
  cassandraSettings = infra.cassandra;
  kafka = createKafka({ brokers, clientId: "test.replay" });
  cassandra = await connectCassandra(cassandraSettings, { migrate: false });
  await ensureTopics(kafka, [
    { name: TOPIC, partitions: PARTITIONS, cleanupPolicy: "delete" as const, retentionMs: 86_400_000 },
  ]);
  // ~2,500 sessions, ~15,000 records; a quarter never end, some go on after expiring.
  journal = journalOf({
    count: 2500,
    partitions: PARTITIONS,
    interleave: 48,
    ends: (i) => (["open", "expire", "late", "expire"] as const)[i % 4] ?? "open",
  });
  expected = new Map(
    [...journal.sessions].map(([id, events]) => [id, events.reduce(evolve, null as SessionState)]),
  );
  const producer = kafkajs(kafka).producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    // Many small sends: many record batches, so the replay reads many fetches and commits between them.
    for (const [partition, records] of journal.partitions) {
      for (let i = 0; i < records.length; i += 200) {
        await producer.send({
          topic: TOPIC,
          acks: -1,
          messages: records
            .slice(i, i + 200)
            .map((r) => ({ partition, key: r.key as Buffer, value: r.value as Buffer })),
        });
      }
    }
  } finally {
    await producer.disconnect();
  }
}, 300_000);

afterAll(async () => {
  for (const t of tables) await cassandra?.execute(`DROP TABLE IF EXISTS ${t}`).catch(() => {});
  const admin = kafkajs(kafka).admin();
  await admin.connect();
  await admin.deleteTopics({ topics: [TOPIC] }).catch(() => {});
  await admin.disconnect();
  await cassandra?.shutdown();
});

/** Every row of `table` against the full fold: the same sessions, each with exactly its state. */
async function expectFullFold(table: string): Promise<void> {
  const model = createSessionReadModel(cassandra, table);
  const ids = [...expected.keys()];
  for (let i = 0; i < ids.length; i += 100) {
    const chunk = ids.slice(i, i + 100);
    const rows = await Promise.all(chunk.map((id) => model.get(id)));
    chunk.forEach((id, j) => {
      expect(rows[j]?.state, `session ${id} in ${table}`).toEqual(expected.get(id));
    });
  }
  const count = await cassandra.execute(`SELECT COUNT(*) FROM ${table}`);
  expect(Number(count.first().get(0))).toBe(expected.size);
}

const settings = (table: string) => ({
  kafka: { brokers, clientId: "test.replay" },
  cassandra: cassandraSettings,
  table,
});

describe("a replay into a read-model table", () => {
  it("holds at most its bound of states and still writes exactly the full fold, on two threads", async () => {
    const table = `replay_full_${Date.now()}`;
    tables.push(table);
    const result = await rebuildReadModel(settings(table), {
      topic: TOPIC,
      workers: 2,
      maxOpenSessions: MAX_OPEN,
    });
    expect(result.sessions).toBe(expected.size);
    expect(result.resumedFrom).toBeNull();
    expect(result.counts.peakHeld).toBeLessThanOrEqual(MAX_OPEN);
    expect(result.counts.reopened).toBeGreaterThan(0);
    await expectFullFold(table);
    expect((await replayPositions(cassandra).read(table))?.finished).toBe(true);
  });

  it("stopped half way, goes on from its committed positions on one thread and ends with the full fold", async () => {
    const table = `replay_resumed_${Date.now()}`;
    tables.push(table);
    const total = [...journal.partitions.values()].reduce((n, r) => n + r.length, 0);
    const stop = new AbortController();
    await expect(
      rebuildReadModel(settings(table), {
        topic: TOPIC,
        workers: 1,
        maxOpenSessions: MAX_OPEN,
        checkpointMs: 0, // a commit after every fetch
        signal: stop.signal,
        onProgress: ({ read }) => {
          if (read >= total / 2) stop.abort(new Error("stopped half way"));
        },
      }),
    ).rejects.toThrow("stopped half way");
    const committed = await replayPositions(cassandra).read(table);
    expect(committed?.finished).toBe(false);
    const done = [...(committed?.positions.values() ?? [])].reduce((n, o) => n + Number(o), 0);
    expect(done).toBeGreaterThan(total / 8);

    let read = 0;
    const resumed = await rebuildReadModel(settings(table), {
      topic: TOPIC,
      workers: 1,
      maxOpenSessions: MAX_OPEN,
      onProgress: (p) => {
        read = p.read;
      },
    });
    expect(resumed.resumedFrom).toEqual(committed?.positions);
    expect(read).toBe(total - done);
    await expectFullFold(table);
    expect((await replayPositions(cassandra).read(table))?.finished).toBe(true);
  });
});
