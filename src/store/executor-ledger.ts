import type cassandra from "cassandra-driver";
import type { CassandraClient } from "./cassandra.ts";

/**
 * One row of `executor_ledger` (migrations/0005_executor_ledger.cql): the transaction a relayer
 * signed at one nonce for one step, recorded before it is broadcast.
 */
export interface LedgerRow {
  chainId: number;
  relayer: string;
  nonce: bigint;
  stepKey: string;
  rawTx: `0x${string}`;
  txHash: `0x${string}`;
  /** Every hash broadcast at this nonce (the first signature and each replacement). */
  hashes: Array<`0x${string}`>;
  attempt: number;
  /** signed: may still mine; mined: one of `hashes` is in a block; superseded: the nonce went to another transaction. */
  state: "signed" | "mined" | "superseded";
  createdAt: Date;
}

const Q = { prepare: true } as const;
const COLUMNS =
  "chain_id, relayer, nonce, step_key, raw_tx, tx_hash, hashes, attempt, state, created_at, updated_at";

const fromRow = (r: cassandra.types.Row): LedgerRow => ({
  chainId: Number(r.chain_id),
  relayer: String(r.relayer),
  nonce: BigInt(String(r.nonce)),
  stepKey: String(r.step_key),
  rawTx: r.raw_tx,
  txHash: r.tx_hash,
  hashes: [...((r.hashes as string[] | null) ?? [])] as Array<`0x${string}`>,
  attempt: Number(r.attempt),
  state: r.state,
  createdAt: r.created_at as Date,
});

/** Typed access to the executor's ledger; every write that could race another process is a lightweight transaction. */
export function executorLedger(client: CassandraClient) {
  return {
    /** The rows of a step, oldest nonce first (more than one only when an earlier nonce was superseded). */
    async byStep(stepKey: string): Promise<LedgerRow[]> {
      const rs = await client.execute(
        `SELECT ${COLUMNS} FROM executor_ledger WHERE step_key = ?`,
        [stepKey],
        Q,
      );
      return rs.rows.map(fromRow).sort((a, b) => (a.nonce < b.nonce ? -1 : a.nonce > b.nonce ? 1 : 0));
    },

    /** Claims the row's nonce for its step unless the nonce is taken; returns the row that holds it otherwise. */
    async claim(row: Omit<LedgerRow, "createdAt" | "hashes" | "state">): Promise<LedgerRow | null> {
      const rs = await client.execute(
        `INSERT INTO executor_ledger (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'signed', toTimestamp(now()), toTimestamp(now())) IF NOT EXISTS`,
        [row.chainId, row.relayer, row.nonce, row.stepKey, row.rawTx, row.txHash, [row.txHash], row.attempt],
        Q,
      );
      const existing = rs.wasApplied() ? null : rs.first();
      return existing ? fromRow(existing) : null;
    },

    /**
     * Records a new transaction at the row's nonce (a fee-bump replacement, or a take-over of a
     * stale claim by another step) if the row still holds `expectedHash`: false when another writer
     * got there first.
     */
    async replace(
      at: Pick<LedgerRow, "chainId" | "relayer" | "nonce">,
      expectedHash: string,
      next: Pick<LedgerRow, "stepKey" | "rawTx" | "txHash" | "attempt"> & { resetHashes?: boolean },
    ): Promise<boolean> {
      const hashes = next.resetHashes ? "hashes = ?" : "hashes = hashes + ?";
      const rs = await client.execute(
        `UPDATE executor_ledger SET step_key = ?, raw_tx = ?, tx_hash = ?, ${hashes}, attempt = ?, state = 'signed', updated_at = toTimestamp(now())
         WHERE chain_id = ? AND relayer = ? AND nonce = ? IF tx_hash = ?`,
        [
          next.stepKey,
          next.rawTx,
          next.txHash,
          [next.txHash],
          next.attempt,
          at.chainId,
          at.relayer,
          at.nonce,
          expectedHash,
        ],
        Q,
      );
      return rs.wasApplied();
    },

    /**
     * Marks the row mined (with the hash that was) or superseded. A lightweight transaction like the
     * other writes: mixing plain writes into rows written through Paxos can lose them to its timestamps.
     */
    async settle(
      at: Pick<LedgerRow, "chainId" | "relayer" | "nonce">,
      state: "mined" | "superseded",
      txHash: string,
    ): Promise<void> {
      await client.execute(
        "UPDATE executor_ledger SET state = ?, tx_hash = ?, updated_at = toTimestamp(now()) WHERE chain_id = ? AND relayer = ? AND nonce = ? IF EXISTS",
        [state, txHash, at.chainId, at.relayer, at.nonce],
        Q,
      );
    },
  };
}

export type ExecutorLedger = ReturnType<typeof executorLedger>;
