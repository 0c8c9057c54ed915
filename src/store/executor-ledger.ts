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

    /** Claims a step for `owner` (before any nonce), renews its claim, or takes over an expired one. */
    claimStep: (stepKey: string, owner: string, leaseMs: number): Promise<StepOwner> =>
      claimStep(client, stepKey, owner, leaseMs),
    /** true when `owner` still holds the step (its lease renewed): checked again before a broadcast. */
    holdsStep: async (stepKey: string, owner: string, leaseMs: number): Promise<boolean> =>
      (await renewStep(client, stepKey, owner, leaseMs)) !== null,

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

/** Who holds a step (migrations/0014_executor_step_owners.cql), as the claim found it. */
export interface StepOwner {
  owner: string;
  leaseUntil: Date;
}

/**
 * The step claim, before any nonce is claimed for the step: one owner at a time may sign for it.
 * Answers the holder after the attempt (`owner === me` when the claim, renewal or take-over won).
 */
async function claimStep(client: CassandraClient, stepKey: string, me: string, leaseMs: number) {
  const until = () => new Date(Date.now() + leaseMs);
  const inserted = await client.execute(
    "INSERT INTO executor_step_owners (step_key, owner, lease_until) VALUES (?, ?, ?) IF NOT EXISTS",
    [stepKey, me, until()],
    Q,
  );
  if (inserted.wasApplied()) return { owner: me, leaseUntil: until() };
  const held = ownerOf(inserted.first());
  if (held.owner === me) return (await renewStep(client, stepKey, me, leaseMs)) ?? held;
  if (held.leaseUntil.getTime() > Date.now()) return held;
  // The lease ran out (its owner crashed, or stalled): taken over by exactly one claimant, the one
  // whose update still finds the row as it was read.
  const next = until();
  const taken = await client.execute(
    "UPDATE executor_step_owners SET owner = ?, lease_until = ? WHERE step_key = ? IF owner = ? AND lease_until = ?",
    [me, next, stepKey, held.owner, held.leaseUntil],
    Q,
  );
  return taken.wasApplied() ? { owner: me, leaseUntil: next } : ownerOf(taken.first());
}

/** Extends the lease if `me` still holds the step: null when another owner took it over. */
async function renewStep(client: CassandraClient, stepKey: string, me: string, leaseMs: number) {
  const leaseUntil = new Date(Date.now() + leaseMs);
  const rs = await client.execute(
    "UPDATE executor_step_owners SET lease_until = ? WHERE step_key = ? IF owner = ?",
    [leaseUntil, stepKey, me],
    Q,
  );
  return rs.wasApplied() ? { owner: me, leaseUntil } : null;
}

const ownerOf = (r: cassandra.types.Row | null): StepOwner => ({
  owner: String(r?.owner ?? ""),
  leaseUntil: (r?.lease_until as Date | null) ?? new Date(0),
});
