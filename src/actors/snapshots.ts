import { gunzipSync, gzipSync } from "node:zlib";
import type { SnapshotTable } from "../store/snapshots.ts";

export interface PartitionSnapshot<State> {
  /** The last journal offset reflected in the states; -1 when none. */
  eventsOffset: bigint;
  states: State[];
}

/** Snapshots of an entity's actor partitions. An optimisation only: restore works without them. */
export interface SnapshotStore<State> {
  load(partition: number): Promise<PartitionSnapshot<State> | null>;
  save(
    partition: number,
    snapshot: { eventsOffset: bigint; states: Iterable<State>; count: number },
  ): Promise<void>;
}

/** States per chunk: well under Cassandra's 8 MiB mutation limit once gzipped (~1 KB per session state). */
const STATES_PER_CHUNK = 2000;

/** An entity's snapshots in the shared table, its states written with the entity's own text encoding. */
export function createSnapshotStore<State>(
  table: SnapshotTable,
  entity: { name: string; snapshot: { encode: (s: State) => string; decode: (text: string) => State } },
): SnapshotStore<State> {
  const pack = (states: State[]): Buffer =>
    gzipSync(Buffer.from(states.map(entity.snapshot.encode).join("\n")), { level: 1 });
  const unpack = (blob: Buffer): State[] => {
    const text = gunzipSync(blob).toString("utf8");
    return text.length === 0 ? [] : text.split("\n").map(entity.snapshot.decode);
  };
  return {
    async load(partition) {
      // Newest generation first; one that a crash left incomplete is passed over for the one before.
      let generation: bigint | null = null;
      let parts: Buffer[] = [];
      let expected = 0;
      for await (const c of table.chunks(entity.name, partition)) {
        if (c.generation !== generation) {
          if (generation !== null && parts.length === expected) break;
          generation = c.generation;
          parts = [];
          expected = c.chunks;
        }
        parts.push(c.blob);
      }
      if (generation === null || parts.length !== expected) return null;
      return { eventsOffset: generation, states: parts.flatMap(unpack) };
    },
    async save(partition, snapshot) {
      const all = [...snapshot.states];
      const chunks = Math.max(1, Math.ceil(all.length / STATES_PER_CHUNK));
      for (let chunk = 0; chunk < chunks; chunk++) {
        const part = all.slice(chunk * STATES_PER_CHUNK, (chunk + 1) * STATES_PER_CHUNK);
        await table.insert(entity.name, partition, {
          generation: snapshot.eventsOffset,
          chunk,
          chunks,
          blob: pack(part),
          count: part.length,
        });
      }
      // Only once the new generation is whole may the older ones go.
      await table.deleteBefore(entity.name, partition, snapshot.eventsOffset);
    },
  };
}
