import cassandra from "cassandra-driver";
import type { CassandraClient } from "./cassandra.ts";

const { Uuid } = cassandra.types;
const Q = { prepare: true } as const;

/** The registry's key of an address: base58 as spelled, 0x hex lower-case. */
const keyOf = (address: string): string => (address.startsWith("0x") ? address.toLowerCase() : address);

/** Typed access to `stealth_addresses` (migrations/0020_stealth_addresses.cql). */
export function stealthAddressesTable(client: CassandraClient) {
  return {
    /** Records a Flow D session's derived addresses; written again with the same values on a retry. */
    async record(sessionId: string, derived: ReadonlyArray<{ stealthAddress: string; scheme: string }>) {
      await Promise.all(
        derived.map((d) =>
          client.execute(
            "INSERT INTO stealth_addresses (address, session_id, scheme, created_at) VALUES (?, ?, ?, toTimestamp(now()))",
            [keyOf(d.stealthAddress), Uuid.fromString(sessionId), d.scheme],
            Q,
          ),
        ),
      );
    },

    /** The session the address was derived for, or null when the service never derived it. */
    async sessionOf(address: string): Promise<string | null> {
      const rs = await client.execute(
        "SELECT session_id FROM stealth_addresses WHERE address = ?",
        [keyOf(address)],
        Q,
      );
      const row = rs.first();
      return row ? String(row.session_id) : null;
    },
  };
}

export type StealthAddressesTable = ReturnType<typeof stealthAddressesTable>;
