import type { Session } from "../domain/types.ts";
import { type SessionView, sessionView } from "../domain/view.ts";
import { stateFromJson, stateToJson } from "../entities/session-json.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { sessionsTable } from "../store/sessions.ts";

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

/**
 * `batchBytes`: the states of one `write` go to Cassandra in unlogged batches of at most this much row
 * text (0, the default: one statement per state). The projector batches (PROJECTOR_BATCH_BYTES), so
 * its writes of a partition's batch cost a request per ~10 sessions, not one each
 * (docs/PERFORMANCE.md, issue 30 item 3).
 */
export function createSessionReadModel(
  cassandra: CassandraClient,
  table = "sessions",
  batchBytes = 0,
): SessionReadModel {
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
      // The projector writes up to 8 partitions' batches at once, so a node sees at most 8 times
      // upsertAll's parallelism.
      await rows.upsertAll(
        states.map((s) => ({
          id: s.id,
          version: s.version,
          status: s.status,
          merchantId: s.merchantId,
          burner: s.burner,
          viewJson: JSON.stringify(sessionView(s)),
          stateJson: stateToJson(s),
          updatedAt: s.updatedAt,
        })),
        batchBytes,
      );
    },
  };
}
