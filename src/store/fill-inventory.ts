import type cassandra from "cassandra-driver";
import type { CassandraClient } from "./cassandra.ts";

/**
 * The fast fill's inventory accounting (migrations/0017_fill_inventory.cql; docs/SOLANA.md, "EVM
 * destinations: the fast fill"). The inventory itself is the relayer's USDC balance on the chain,
 * read from the chain; this store holds what is promised out of it: a reservation per fill, taken
 * exactly once and closed once (paid or released), and their sum.
 */

export type ReservationState = "reserved" | "paid" | "released";

export interface Reservation {
  chainId: number;
  key: string;
  amount: bigint;
  state: ReservationState;
  txHash: string | null;
}

/** What the chain's inventory can still promise: balance less what is reserved and the floor kept. */
export interface Inventory {
  balance: bigint;
  reserved: bigint;
  open: number;
  floor: bigint;
}

export const freeOf = (i: Inventory): bigint => {
  const free = i.balance - i.reserved - i.floor;
  return free > 0n ? free : 0n;
};

export type ReserveOutcome =
  /** Reserved now, or by an earlier try of the same fill (a re-delivery): either way, once. */
  | { kind: "reserved"; reservation: Reservation; inventory: Inventory }
  /** The fill was paid already: nothing to reserve, the payout is `txHash`. */
  | { kind: "paid"; reservation: Reservation }
  /** Not enough free inventory: nothing was reserved. */
  | { kind: "short"; needed: bigint; free: bigint; inventory: Inventory };

/** Lost races between writers of one chain's partition before giving up (each loser re-reads). */
const MAX_RACES = 20;
const Q = { prepare: true } as const;

interface Totals {
  reserved: bigint;
  open: number;
  /** null: no reservation was ever taken on the chain. */
  version: bigint | null;
}

const toReservation = (r: cassandra.types.Row): Reservation => ({
  chainId: Number(r.chain_id),
  key: String(r.fill_key),
  amount: BigInt(String(r.amount)),
  state: r.state as ReservationState,
  txHash: (r.tx_hash as string | null) ?? null,
});

export type FillInventory = ReturnType<typeof fillInventory>;

export function fillInventory(client: CassandraClient) {
  async function find(chainId: number, key: string): Promise<Reservation | null> {
    const rs = await client.execute(
      "SELECT chain_id, fill_key, amount, state, tx_hash FROM fill_inventory WHERE chain_id = ? AND fill_key = ?",
      [chainId, key],
      Q,
    );
    const row = rs.first();
    // A partition with statics only answers a row with a null key for any key.
    return row && row.fill_key !== null ? toReservation(row) : null;
  }

  async function totals(chainId: number): Promise<Totals> {
    const rs = await client.execute(
      "SELECT reserved, open, version FROM fill_inventory WHERE chain_id = ? LIMIT 1",
      [chainId],
      Q,
    );
    const row = rs.first();
    return {
      reserved: row?.reserved == null ? 0n : BigInt(String(row.reserved)),
      open: row?.open == null ? 0 : Number(row.open),
      version: row?.version == null ? null : BigInt(String(row.version)),
    };
  }

  const bumpTotals = (chainId: number, next: Omit<Totals, "version">, version: bigint | null) => ({
    query: "UPDATE fill_inventory SET reserved = ?, open = ?, version = ? WHERE chain_id = ? IF version = ?",
    params: [next.reserved, next.open, (version ?? 0n) + 1n, chainId, version],
  });

  return {
    find,

    /** The chain's open reservations (sum and count), for the metrics. */
    async totals(chainId: number): Promise<{ reserved: bigint; open: number }> {
      const { reserved, open } = await totals(chainId);
      return { reserved, open };
    },

    /**
     * Reserves `amount` for the fill `key` if the chain's free inventory covers it. `balance` reads
     * the relayer's balance; it is read after the totals, so a payout closed between the two is
     * already out of the balance (a payout is closed only once mined). Safe to call again: a fill
     * already reserved or paid is answered as it stands, never reserved twice.
     */
    async reserve(args: {
      chainId: number;
      key: string;
      amount: bigint;
      floor: bigint;
      balance: () => Promise<bigint>;
    }): Promise<ReserveOutcome> {
      const { chainId, key, amount, floor } = args;
      if (amount <= 0n) throw new RangeError(`a fill reserves a positive amount, not ${amount}`);
      for (let race = 0; race < MAX_RACES; race++) {
        const existing = await find(chainId, key);
        const t = await totals(chainId);
        const inventory: Inventory = {
          balance: await args.balance(),
          reserved: t.reserved,
          open: t.open,
          floor,
        };
        if (existing?.state === "paid") return { kind: "paid", reservation: existing };
        if (existing?.state === "reserved") return { kind: "reserved", reservation: existing, inventory };
        const free = freeOf(inventory);
        if (amount > free) return { kind: "short", needed: amount, free, inventory };
        // A released fill (its payout failed for good) may be reserved again when its command is re-run.
        const row = existing
          ? {
              query:
                "UPDATE fill_inventory SET amount = ?, state = 'reserved', tx_hash = null, reserved_at = toTimestamp(now()), closed_at = null WHERE chain_id = ? AND fill_key = ? IF state = 'released'",
              params: [amount, chainId, key],
            }
          : {
              query:
                "INSERT INTO fill_inventory (chain_id, fill_key, amount, state, reserved_at) VALUES (?, ?, ?, 'reserved', toTimestamp(now())) IF NOT EXISTS",
              params: [chainId, key, amount],
            };
        const next = { reserved: t.reserved + amount, open: t.open + 1 };
        const rs = await client.batch([row, bumpTotals(chainId, next, t.version)], Q);
        if (rs.wasApplied()) {
          const reservation: Reservation = { chainId, key, amount, state: "reserved", txHash: null };
          return { kind: "reserved", reservation, inventory: { ...inventory, ...next } };
        }
        // Another writer of the chain got there first (another fill, or this one on another process): read again.
      }
      throw new Error(
        `fill inventory of chain ${chainId}: lost ${MAX_RACES} races in a row reserving ${key}`,
      );
    },

    /**
     * Closes the fill's reservation: `paid` by `txHash` (once the payout is mined) or `released`
     * (the payout failed for good). Closing a fill that is not reserved changes nothing, so a
     * re-delivered close is harmless. Returns whether this call closed it.
     */
    async close(
      chainId: number,
      key: string,
      outcome: { state: "paid"; txHash: string } | { state: "released" },
    ): Promise<boolean> {
      for (let race = 0; race < MAX_RACES; race++) {
        const existing = await find(chainId, key);
        if (existing?.state !== "reserved") return false;
        const t = await totals(chainId);
        const txHash = outcome.state === "paid" ? outcome.txHash : null;
        const next = { reserved: t.reserved - existing.amount, open: t.open - 1 };
        const rs = await client.batch(
          [
            {
              query:
                "UPDATE fill_inventory SET state = ?, tx_hash = ?, closed_at = toTimestamp(now()) WHERE chain_id = ? AND fill_key = ? IF state = 'reserved'",
              params: [outcome.state, txHash, chainId, key],
            },
            bumpTotals(chainId, next, t.version),
          ],
          Q,
        );
        if (rs.wasApplied()) return true;
      }
      throw new Error(`fill inventory of chain ${chainId}: lost ${MAX_RACES} races in a row closing ${key}`);
    },
  };
}
