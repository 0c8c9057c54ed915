import type { CassandraClient } from "./cassandra.ts";

/**
 * The read_models row: which sessions tables the gateways read and the projectors write (what each
 * field means, and how it may change: src/projections/read-model-control.ts).
 */
export interface ReadModels {
  active: string;
  following: string[];
  retired: string[];
  /** Bumped by every change: a change is written only over the version it was decided on. */
  version: number;
}

/** Where a service that never switched stands: the migrations' `sessions` table, alone. */
export const INITIAL_READ_MODELS: ReadModels = { active: "sessions", following: [], retired: [], version: 0 };

/** The one row this service keeps today: the sessions read model. */
const NAME = "sessions";

/** The read_models row (migrations/0018_read_models.cql), changed only over the version it was read at. */
export interface ReadModelControlStore {
  read(): Promise<ReadModels>;
  /** Writes `next` if the row is still at `expected`'s version; false when another change came first. */
  write(expected: ReadModels, next: ReadModels): Promise<boolean>;
  /** Whether a table of that name exists in the keyspace (a rebuild never writes over one it does not own). */
  tableExists(table: string): Promise<boolean>;
}

export function readModelControlStore(cassandra: CassandraClient): ReadModelControlStore {
  return {
    async read() {
      const row = (
        await cassandra.execute(
          "SELECT active, following, retired, version FROM read_models WHERE name = ?",
          [NAME],
        )
      ).first();
      if (!row) return INITIAL_READ_MODELS;
      return {
        active: row.get("active"),
        following: row.get("following") ?? [],
        retired: row.get("retired") ?? [],
        version: Number(row.get("version")),
      };
    },
    async write(expected, next) {
      const values = [next.active, next.following, next.retired, BigInt(next.version), new Date(), NAME];
      // The first change inserts the row; every later one is compared on the version it read.
      const rs =
        expected.version === 0
          ? await cassandra.execute(
              "INSERT INTO read_models (active, following, retired, version, updated_at, name) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS",
              values,
            )
          : await cassandra.execute(
              "UPDATE read_models SET active = ?, following = ?, retired = ?, version = ?, updated_at = ? WHERE name = ? IF version = ?",
              [...values, BigInt(expected.version)],
            );
      return rs.wasApplied();
    },
    async tableExists(table) {
      const rs = await cassandra.execute(
        "SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?",
        [cassandra.keyspace, table],
      );
      return rs.rowLength > 0;
    },
  };
}
