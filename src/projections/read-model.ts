import type { Session } from "../domain/types.ts";
import { type SessionView, sessionView } from "../domain/view.ts";
import { stateFromJson, stateToJson } from "../entities/session-json.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { sessionsTable } from "../store/sessions.ts";
import { mapConcurrent } from "../support/map-concurrent.ts";

export interface StoredSession {
  version: number;
  view: SessionView;
  state: Session;
}

/**
 * The sessions read model in Cassandra: one row per session, the latest version wins. The rows are
 * reached through src/store/sessions.ts; here they become the Session object and the state.
 */
export interface SessionReadModel {
  readonly table: string;
  get(id: string): Promise<StoredSession | null>;
  /** The Session object alone, for the gateway's reads: no state to fetch and parse. */
  getView(id: string): Promise<Omit<StoredSession, "state"> | null>;
  /** Writes each state with its version as the cell timestamp: an older version never overwrites a newer. */
  write(states: Session[]): Promise<void>;
  ensureTable(): Promise<void>;
}

export function createSessionReadModel(cassandra: CassandraClient, table = "sessions"): SessionReadModel {
  const rows = sessionsTable(cassandra, table);
  return {
    table: rows.name,
    ensureTable: () => rows.ensure(),
    async get(id) {
      const row = await rows.get(id);
      if (!row) return null;
      return { version: row.version, view: JSON.parse(row.viewJson), state: stateFromJson(row.stateJson) };
    },
    async getView(id) {
      const row = await rows.getView(id);
      return row && { version: row.version, view: JSON.parse(row.viewJson) };
    },
    async write(states) {
      // Bounded parallelism per batch: enough to keep the driver's pipeline full. The projector
      // writes up to 8 partitions' batches at once, so a node sees at most 8 times this.
      await mapConcurrent([...states], 64, (s) =>
        rows.upsert({
          id: s.id,
          version: s.version,
          status: s.status,
          merchantId: s.merchantId,
          burner: s.burner,
          viewJson: JSON.stringify(sessionView(s)),
          stateJson: stateToJson(s),
          updatedAt: s.updatedAt,
        }),
      );
    },
  };
}
