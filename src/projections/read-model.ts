import type { Session } from "../domain/types.ts";
import { type SessionView, sessionView } from "../domain/view.ts";
import { stateFromJson, stateToJson } from "../entities/session-json.ts";
import type { CassandraClient } from "../store/cassandra.ts";

export interface StoredSession {
  version: number;
  view: SessionView;
  state: Session;
}

/** The sessions read model in Cassandra: one row per session, the latest version wins. */
export interface SessionReadModel {
  readonly table: string;
  get(id: string): Promise<StoredSession | null>;
  /** The Session object alone, for the gateway's reads: no state to fetch and parse. */
  getView(id: string): Promise<Omit<StoredSession, "state"> | null>;
  /** Writes each state with its version as the cell timestamp: an older version never overwrites a newer. */
  write(states: Session[]): Promise<void>;
  ensureTable(): Promise<void>;
}

const TABLE_NAME = /^[a-z][a-z0-9_]{0,47}$/;

export function createSessionReadModel(cassandra: CassandraClient, table = "sessions"): SessionReadModel {
  if (!TABLE_NAME.test(table)) throw new Error(`bad read model table name: ${table}`);
  const upsert = `UPDATE ${table} USING TIMESTAMP ? SET version = ?, status = ?, merchant_id = ?, burner = ?, view_json = ?, state_json = ?, updated_at = ? WHERE id = ?`;
  return {
    table,
    async ensureTable() {
      await cassandra.execute(
        `CREATE TABLE IF NOT EXISTS ${table} (id uuid PRIMARY KEY, version int, status text, merchant_id text, burner text, view_json text, state_json text, updated_at timestamp)`,
      );
    },
    async get(id) {
      const rs = await cassandra.execute(`SELECT version, view_json, state_json FROM ${table} WHERE id = ?`, [
        id,
      ]);
      const row = rs.first();
      if (!row || row.get("version") === null) return null;
      return {
        version: row.get("version"),
        view: JSON.parse(row.get("view_json")),
        state: stateFromJson(row.get("state_json")),
      };
    },
    async getView(id) {
      const rs = await cassandra.execute(`SELECT version, view_json FROM ${table} WHERE id = ?`, [id]);
      const row = rs.first();
      if (!row || row.get("version") === null) return null;
      return { version: row.get("version"), view: JSON.parse(row.get("view_json")) };
    },
    async write(states) {
      // Bounded parallelism: enough to keep the driver's pipeline full, not enough to flood one node.
      const queue = [...states];
      const worker = async () => {
        for (let s = queue.pop(); s; s = queue.pop()) {
          await cassandra.execute(upsert, [
            BigInt(s.version),
            s.version,
            s.status,
            s.merchantId,
            s.burner,
            JSON.stringify(sessionView(s)),
            stateToJson(s),
            new Date(s.updatedAt),
            s.id,
          ]);
        }
      };
      await Promise.all(Array.from({ length: Math.min(64, queue.length) }, worker));
    },
  };
}
