import { sizedChunks } from "../support/chunks.ts";
import { mapConcurrent } from "../support/map-concurrent.ts";
import type { CassandraClient } from "./cassandra.ts";

/**
 * One row of the sessions read model (migrations/0001_sessions.cql, or a table of the same shape
 * that a replay rebuilds under another name): the session's latest version, its Session object and
 * its state, both as JSON text. What the JSON holds is the projections' business (read-model.ts).
 */
export interface SessionRow {
  id: string;
  version: number;
  status: string;
  merchantId: string | null;
  burner: string | null;
  viewJson: string;
  stateJson: string;
  /** unix ms */
  updatedAt: number;
}

/** Typed access to a sessions read-model table. */
export interface SessionsTable {
  readonly name: string;
  /** Creates the table when missing (a replay's target table; `sessions` itself comes from the migrations). */
  ensure(): Promise<void>;
  /** The row's version and JSON, or null when the session has no row. */
  get(id: string): Promise<Pick<SessionRow, "version" | "viewJson" | "stateJson"> | null>;
  /** The row's version and Session object alone: no state to fetch. */
  getView(id: string): Promise<Pick<SessionRow, "version" | "viewJson"> | null>;
  /**
   * Writes each row with its version as the cell timestamp, so an older version never overwrites a
   * newer one, whatever order concurrent writers (projector, replay) arrive in. Rows go in unlogged
   * batches of at most `maxBatchBytes` of row text each (0: one statement per row). A batch is one
   * request instead of one per row, which is what Cassandra's CPU per write goes on at these sizes;
   * it is not atomic across rows and need not be, since each row carries its own version as its
   * timestamp. A failed call may have written some rows: writing them again changes nothing.
   */
  upsertAll(rows: readonly SessionRow[], maxBatchBytes: number): Promise<void>;
}

/** Table names go into CQL text (they cannot be bound): only this shape is let through. */
const TABLE_NAME = /^[a-z][a-z0-9_]{0,47}$/;

/** Concurrent requests per upsertAll: enough to keep the driver's pipeline full. */
const CONCURRENT_WRITES = 64;

/**
 * A row's size as Cassandra's batch limit counts it, from above: its JSON's UTF-8 bytes (a name may
 * not be ASCII), its status and burner, and 128 for the other cells. A batch estimated at 32 KiB
 * measured 29.6 KiB in Cassandra's own warning, so a budget under its 50 KiB refusal is never
 * refused (a refused batch would be refused again on every retry).
 */
export const rowBytes = (r: SessionRow): number =>
  Buffer.byteLength(r.viewJson) +
  Buffer.byteLength(r.stateJson) +
  r.status.length +
  (r.burner?.length ?? 0) +
  128;

export function sessionsTable(cassandra: CassandraClient, name = "sessions"): SessionsTable {
  if (!TABLE_NAME.test(name)) throw new Error(`bad read model table name: ${name}`);
  const upsert = `UPDATE ${name} USING TIMESTAMP ? SET version = ?, status = ?, merchant_id = ?, burner = ?, view_json = ?, state_json = ?, updated_at = ? WHERE id = ?`;
  return {
    name,
    async ensure() {
      await cassandra.execute(
        `CREATE TABLE IF NOT EXISTS ${name} (id uuid PRIMARY KEY, version int, status text, merchant_id text, burner text, view_json text, state_json text, updated_at timestamp)`,
      );
    },
    async get(id) {
      const rs = await cassandra.execute(`SELECT version, view_json, state_json FROM ${name} WHERE id = ?`, [
        id,
      ]);
      const row = rs.first();
      if (!row || row.get("version") === null) return null;
      return {
        version: row.get("version"),
        viewJson: row.get("view_json"),
        stateJson: row.get("state_json"),
      };
    },
    async getView(id) {
      const rs = await cassandra.execute(`SELECT version, view_json FROM ${name} WHERE id = ?`, [id]);
      const row = rs.first();
      if (!row || row.get("version") === null) return null;
      return { version: row.get("version"), viewJson: row.get("view_json") };
    },
    async upsertAll(rows, maxBatchBytes) {
      // Without a budget every row goes alone, and no row's size needs counting.
      const chunks = maxBatchBytes > 0 ? sizedChunks(rows, rowBytes, maxBatchBytes) : rows.map((r) => [r]);
      await mapConcurrent(chunks, CONCURRENT_WRITES, async (chunk) => {
        const [only] = chunk;
        if (chunk.length === 1 && only) await cassandra.execute(upsert, upsertParams(only));
        else
          await cassandra.batch(
            chunk.map((r) => ({ query: upsert, params: upsertParams(r) })),
            { prepare: true, logged: false },
          );
      });
    },
  };
}

function upsertParams(r: SessionRow): unknown[] {
  return [
    BigInt(r.version),
    r.version,
    r.status,
    r.merchantId,
    r.burner,
    r.viewJson,
    r.stateJson,
    new Date(r.updatedAt),
    r.id,
  ];
}
