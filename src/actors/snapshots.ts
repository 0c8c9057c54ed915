import type { Session } from "../domain/types.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { packStates, unpackStates } from "./state-serde.ts";

export interface PartitionSnapshot {
  /** The last session.events offset reflected in the states; -1 when none. */
  eventsOffset: bigint;
  states: Session[];
}

/** Snapshots of an actor partition in Cassandra. An optimisation only: restore works without them. */
export interface SnapshotStore {
  load(partition: number): Promise<PartitionSnapshot | null>;
  save(
    partition: number,
    snapshot: { eventsOffset: bigint; states: Iterable<Session>; count: number },
  ): Promise<void>;
}

/** Sessions per chunk: well under Cassandra's 8 MiB mutation limit once gzipped (~1 KB per state). */
const SESSIONS_PER_CHUNK = 2000;

export function createSnapshotStore(cassandra: CassandraClient): SnapshotStore {
  return {
    async load(partition) {
      const rs = await cassandra.execute(
        "SELECT generation, chunk, chunks, states FROM actor_snapshots WHERE partition = ?",
        [partition],
        { fetchSize: 50 },
      );
      // Newest generation first; one that a crash left incomplete is passed over for the one before.
      let generation: bigint | null = null;
      let parts: Buffer[] = [];
      let expected = 0;
      for await (const row of rs) {
        const g = BigInt(row.get("generation"));
        if (g !== generation) {
          if (generation !== null && parts.length === expected) break;
          generation = g;
          parts = [];
          expected = row.get("chunks");
        }
        parts.push(row.get("states"));
      }
      if (generation === null || parts.length !== expected) return null;
      return { eventsOffset: generation, states: parts.flatMap(unpackStates) };
    },
    async save(partition, snapshot) {
      const all = [...snapshot.states];
      const chunks = Math.max(1, Math.ceil(all.length / SESSIONS_PER_CHUNK));
      for (let chunk = 0; chunk < chunks; chunk++) {
        const part = all.slice(chunk * SESSIONS_PER_CHUNK, (chunk + 1) * SESSIONS_PER_CHUNK);
        await cassandra.execute(
          "INSERT INTO actor_snapshots (partition, generation, chunk, chunks, states, session_count, taken_at) VALUES (?, ?, ?, ?, ?, ?, toTimestamp(now()))",
          [partition, snapshot.eventsOffset, chunk, chunks, packStates(part), part.length],
        );
      }
      // Only once the new generation is whole may the older ones go.
      await cassandra.execute("DELETE FROM actor_snapshots WHERE partition = ? AND generation < ?", [
        partition,
        snapshot.eventsOffset,
      ]);
    },
  };
}
