import type { CassandraClient } from "./cassandra.ts";

/**
 * Where a replay into a read-model table got to, per partition of the journal: every record before
 * `next` is in the table. Written by the replay only after the table holds everything before it, so
 * a replay stopped half way resumes from there (src/projections/replay.ts). One table for every
 * replay target, keyed by the target table's name.
 */
export interface ReplayPositions {
  ensure(): Promise<void>;
  /** The committed positions of `target`, and whether its last replay reached its end. Null: none. */
  read(target: string): Promise<{ positions: Map<number, bigint>; finished: boolean } | null>;
  commit(target: string, positions: Map<number, bigint>, finished: boolean): Promise<void>;
  clear(target: string): Promise<void>;
}

export const REPLAY_POSITIONS_TABLE = "replay_positions";

export function replayPositions(cassandra: CassandraClient): ReplayPositions {
  const table = REPLAY_POSITIONS_TABLE;
  return {
    async ensure() {
      await cassandra.execute(
        `CREATE TABLE IF NOT EXISTS ${table} (target text, partition int, next bigint, finished boolean, PRIMARY KEY (target, partition))`,
      );
    },
    async read(target) {
      const rs = await cassandra.execute(`SELECT partition, next, finished FROM ${table} WHERE target = ?`, [
        target,
      ]);
      if (rs.rowLength === 0) return null;
      const positions = new Map<number, bigint>();
      let finished = true;
      for (const row of rs.rows) {
        positions.set(row.get("partition"), BigInt(row.get("next").toString()));
        if (!row.get("finished")) finished = false;
      }
      return { positions, finished };
    },
    async commit(target, positions, finished) {
      const queries = [...positions].map(([partition, next]) => ({
        query: `INSERT INTO ${table} (target, partition, next, finished) VALUES (?, ?, ?, ?)`,
        params: [target, partition, next, finished],
      }));
      // One partition key: a logged batch of it is applied together.
      if (queries.length > 0) await cassandra.batch(queries, { prepare: true });
    },
    async clear(target) {
      await cassandra.execute(`DELETE FROM ${table} WHERE target = ?`, [target]);
    },
  };
}
