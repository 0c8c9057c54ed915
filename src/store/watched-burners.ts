import cassandra from "cassandra-driver";
import type { CassandraClient } from "./cassandra.ts";

/** One row of `watched_burners` (migrations/0003_indexer.cql): a burner one chain's indexer watches. */
export interface WatchedBurnerRow {
  burner: string;
  sessionId: string;
  /** The indexer's checkpoint when the burner was registered; the backfill ends there. */
  sinceBlock: bigint;
}

const { Uuid } = cassandra.types;
const Q = { prepare: true } as const;

const fromRow = (row: cassandra.types.Row): WatchedBurnerRow => ({
  burner: String(row.burner),
  sessionId: String(row.session_id),
  sinceBlock: BigInt(String(row.since_block)),
});

/** Typed access to one chain's partition of `watched_burners`. */
export function watchedBurnersTable(client: CassandraClient, chainId: number) {
  return {
    /**
     * Registers the burner unless a row exists (a lightweight transaction: the first registration
     * wins); returns the row that holds, this one or the existing one.
     */
    async insertIfAbsent(row: WatchedBurnerRow): Promise<{ applied: boolean; row: WatchedBurnerRow }> {
      const rs = await client.execute(
        "INSERT INTO watched_burners (chain_id, burner, session_id, since_block) VALUES (?, ?, ?, ?) IF NOT EXISTS",
        [chainId, row.burner, Uuid.fromString(row.sessionId), row.sinceBlock],
        Q,
      );
      const existing = rs.wasApplied() ? null : rs.first();
      return existing ? { applied: false, row: fromRow(existing) } : { applied: true, row };
    },

    /** Every burner the chain's indexer watches. */
    async *all(): AsyncIterable<WatchedBurnerRow> {
      const rs = await client.execute(
        "SELECT burner, session_id, since_block FROM watched_burners WHERE chain_id = ?",
        [chainId],
        { ...Q, fetchSize: 1000 },
      );
      for await (const row of rs) yield fromRow(row);
    },
  };
}
