import type { CassandraClient } from "./cassandra.ts";

/** One chunk of a snapshot generation, as stored. */
export interface SnapshotChunk {
  generation: bigint;
  chunk: number;
  chunks: number;
  blob: Buffer;
  count: number;
}

/** Typed access to the entity_snapshots table (migration 0004). */
export interface SnapshotTable {
  /** Every chunk of one entity partition, newest generation first, chunks in order. */
  chunks(entity: string, partition: number): AsyncIterable<SnapshotChunk>;
  insert(entity: string, partition: number, chunk: SnapshotChunk): Promise<void>;
  /** Removes the generations before `generation`. */
  deleteBefore(entity: string, partition: number, generation: bigint): Promise<void>;
  /** Removes every generation (tests, and an operator who wants a full restore). */
  deleteAll(entity: string, partition: number): Promise<void>;
}

export function createSnapshotTable(cassandra: CassandraClient): SnapshotTable {
  return {
    async *chunks(entity, partition) {
      const rs = await cassandra.execute(
        "SELECT generation, chunk, chunks, states, state_count FROM entity_snapshots WHERE entity = ? AND partition = ?",
        [entity, partition],
        { fetchSize: 50 },
      );
      for await (const row of rs) {
        yield {
          generation: BigInt(row.get("generation")),
          chunk: row.get("chunk"),
          chunks: row.get("chunks"),
          blob: row.get("states"),
          count: row.get("state_count"),
        };
      }
    },
    async insert(entity, partition, c) {
      await cassandra.execute(
        "INSERT INTO entity_snapshots (entity, partition, generation, chunk, chunks, states, state_count, taken_at) VALUES (?, ?, ?, ?, ?, ?, ?, toTimestamp(now()))",
        [entity, partition, c.generation, c.chunk, c.chunks, c.blob, c.count],
      );
    },
    async deleteBefore(entity, partition, generation) {
      await cassandra.execute(
        "DELETE FROM entity_snapshots WHERE entity = ? AND partition = ? AND generation < ?",
        [entity, partition, generation],
      );
    },
    async deleteAll(entity, partition) {
      await cassandra.execute("DELETE FROM entity_snapshots WHERE entity = ? AND partition = ?", [
        entity,
        partition,
      ]);
    },
  };
}
