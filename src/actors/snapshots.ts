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

export function createSnapshotStore(cassandra: CassandraClient): SnapshotStore {
  return {
    async load(partition) {
      const rs = await cassandra.execute(
        "SELECT events_offset, states FROM actor_snapshots WHERE partition = ?",
        [partition],
      );
      const row = rs.first();
      if (!row) return null;
      return { eventsOffset: BigInt(row.get("events_offset")), states: unpackStates(row.get("states")) };
    },
    async save(partition, snapshot) {
      await cassandra.execute(
        "INSERT INTO actor_snapshots (partition, events_offset, states, session_count, taken_at) VALUES (?, ?, ?, ?, toTimestamp(now()))",
        [partition, snapshot.eventsOffset, packStates(snapshot.states), snapshot.count],
      );
    },
  };
}
