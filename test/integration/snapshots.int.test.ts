import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import type { Session } from "../../src/domain/types.ts";
import { sessionSnapshots } from "../../src/entities/session.ts";
import { type CassandraClient, connectCassandra } from "../../src/store/cassandra.ts";
import { createSnapshotTable } from "../../src/store/snapshots.ts";
import { generator } from "../support/generate.ts";

let cassandra: CassandraClient;
// A partition number no actor host uses, so this file never touches a live partition's snapshots.
const partition = 100_000 + Math.floor(Math.random() * 100_000);

beforeAll(async () => {
  const stack = await ensureStack({ root: ".local" });
  cassandra = await connectCassandra({ ...stack.cassandra, keyspace: "settlement" }, { migrate: true });
});
afterAll(async () => {
  await cassandra?.execute("DELETE FROM entity_snapshots WHERE entity = 'session' AND partition = ?", [
    partition,
  ]);
  await cassandra?.shutdown();
});

/** Varied states (nulls, unicode, 256-bit amounts), a different one per index. */
const state = (i: number): Session => generator(i + 1).session();

describe("actor snapshots in Cassandra", () => {
  it("a partition larger than one chunk comes back whole, bigints included", async () => {
    const store = sessionSnapshots(createSnapshotTable(cassandra));
    const states = Array.from({ length: 4500 }, (_, i) => state(i));
    await store.save(partition, { eventsOffset: 41n, states, count: states.length });
    const loaded = await store.load(partition);
    expect(loaded?.eventsOffset).toBe(41n);
    expect(loaded?.states).toEqual(states);
    const rows = await cassandra.execute(
      "SELECT chunk FROM entity_snapshots WHERE entity = 'session' AND partition = ?",
      [partition],
    );
    expect(rows.rowLength).toBe(3);
  });

  it("a newer generation that a crash left incomplete is passed over for the last whole one", async () => {
    const store = sessionSnapshots(createSnapshotTable(cassandra));
    const older = Array.from({ length: 2500 }, (_, i) => state(i));
    await store.save(partition, { eventsOffset: 100n, states: older, count: older.length });
    // What a crash after the first chunk of generation 200 leaves behind.
    await cassandra.execute(
      "INSERT INTO entity_snapshots (entity, partition, generation, chunk, chunks, states, state_count) VALUES ('session', ?, ?, 0, 2, ?, 1)",
      [partition, 200n, Buffer.from("not even gzip")],
    );
    const loaded = await store.load(partition);
    expect(loaded?.eventsOffset).toBe(100n);
    expect(loaded?.states).toHaveLength(2500);
  });

  it("saving a new generation removes the older ones", async () => {
    const store = sessionSnapshots(createSnapshotTable(cassandra));
    await store.save(partition, { eventsOffset: 300n, states: [state(1)], count: 1 });
    const rows = await cassandra.execute(
      "SELECT generation FROM entity_snapshots WHERE entity = 'session' AND partition = ?",
      [partition],
    );
    expect(rows.rows.map((r) => BigInt(r.get("generation")))).toEqual([300n]);
  });
});
