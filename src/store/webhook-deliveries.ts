import type cassandra from "cassandra-driver";
import type { CassandraClient } from "./cassandra.ts";
import { createConditionalBatcher } from "./conditional-batches.ts";
import { webhookAttempts } from "./webhook-attempts.ts";

export type { AttemptRow } from "./webhook-attempts.ts";

/** One delivery of the ledger (migrations/0021_webhook_ledger.cql; before it 0006_webhooks.cql). */
export interface DeliveryRow {
  /** The ledger partition the row is in; null for a row of the table before 0021 (webhook_deliveries). */
  bucket: string | null;
  idempotencyKey: string;
  merchantId: string;
  eventType: string;
  sessionId: string | null;
  payload: string;
  state: "pending" | "delivered" | "failed" | "skipped";
  attempts: number;
  /** Unix ms; null once the delivery is no longer pending. */
  nextRetryAt: number | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: number;
}

/** A delivery to record: its bucket, and when it is due (now, or the end of the caller's lease). */
export type NewDelivery = Pick<
  DeliveryRow,
  "idempotencyKey" | "merchantId" | "eventType" | "sessionId" | "payload"
> & {
  bucket: string;
  eventCreatedAt: number;
  /** When the key was first queued (the event list's time): older keys may be in the table before 0021. */
  firstQueuedAt: number;
  nextRetryAt: number;
};

/** What a claim is conditioned on: the row as the claimer read it. */
export type ClaimBasis = Pick<DeliveryRow, "bucket" | "idempotencyKey" | "attempts"> & {
  nextRetryAt: number;
};

/** A bucket spans one minute of first-queued times. */
export const BUCKET_MS = 60_000;

/**
 * The bucket of a key: the webhook.events partition its records come through (the merchant's: its
 * records always take the same one) and the minute it was first queued. Both are the same for every
 * record of the key, so the key's row is always looked for in the same partition.
 */
export const ledgerBucket = (partition: number, firstQueuedAt: number): string =>
  `${partition}@${new Date(firstQueuedAt - (firstQueuedAt % BUCKET_MS)).toISOString()}`;

const Q = { prepare: true } as const;
const COLUMNS =
  "idempotency_key, merchant_id, event_type, session_id, payload, state, attempts, next_retry_at, last_status, last_error, created_at";
/** The table before 0021, read and moved on but never added to. */
const LEGACY = "webhook_deliveries";
const LEDGER = "webhook_ledger";

const ms = (d: unknown): number | null => (d instanceof Date ? d.getTime() : null);
const date = (t: number | null): Date | null => (t === null ? null : new Date(t));

const fromRow = (r: cassandra.types.Row): DeliveryRow => ({
  bucket: r.bucket ?? null,
  idempotencyKey: String(r.idempotency_key),
  merchantId: String(r.merchant_id),
  eventType: String(r.event_type),
  sessionId: r.session_id ?? null,
  payload: String(r.payload),
  state: r.state,
  attempts: Number(r.attempts),
  nextRetryAt: ms(r.next_retry_at),
  lastStatus: r.last_status ?? null,
  lastError: r.last_error ?? null,
  createdAt: ms(r.created_at) ?? 0,
});

/** The row's table and the WHERE clause naming it (with its bucket in the new table). */
const where = (bucket: string | null, key: string): { table: string; clause: string; params: unknown[] } =>
  bucket === null
    ? { table: LEGACY, clause: "idempotency_key = ?", params: [key] }
    : { table: LEDGER, clause: "bucket = ? AND idempotency_key = ?", params: [bucket, key] };

/**
 * Typed access to the delivery ledger. Every write to a ledger row is a lightweight transaction
 * (mixing plain writes into rows written through Paxos can lose them to its timestamps); those of one
 * bucket that come together are paid as one conditional batch (src/store/conditional-batches.ts).
 */
export function webhookDeliveries(client: CassandraClient) {
  const batcher = createConditionalBatcher(client);
  let legacyRounds = 0;

  /** A conditional write of a row: batched with its bucket's, alone for a row of the old table. */
  async function conditional(
    bucket: string | null,
    key: string,
    query: string,
    params: unknown[],
    bytes = 200,
  ) {
    if (bucket !== null) return batcher.submit(bucket, { row: key, query, params, bytes });
    legacyRounds++;
    return (await client.execute(query, params, Q)).wasApplied();
  }

  /** Keys among `keys` that the table before 0021 holds. */
  async function inLegacy(keys: string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rs = await client.execute(
      `SELECT idempotency_key FROM ${LEGACY} WHERE idempotency_key IN ?`,
      [keys],
      Q,
    );
    return new Set(rs.rows.map((r) => String(r.idempotency_key)));
  }

  async function get(idempotencyKey: string): Promise<DeliveryRow | null> {
    const rs = await client.execute(
      `SELECT bucket, ${COLUMNS} FROM ${LEDGER} WHERE idempotency_key = ?`,
      [idempotencyKey],
      Q,
    );
    const row = rs.first();
    if (row) return fromRow(row);
    const legacy = (
      await client.execute(`SELECT ${COLUMNS} FROM ${LEGACY} WHERE idempotency_key = ?`, [idempotencyKey], Q)
    ).first();
    return legacy ? fromRow(legacy) : null;
  }

  /** The same query on both tables: at most `limit` rows, newest first with `newest`. */
  async function both(
    condition: string,
    params: unknown[],
    limit: number,
    newest = false,
  ): Promise<DeliveryRow[]> {
    const [now, before] = await Promise.all([
      client.execute(
        `SELECT bucket, ${COLUMNS} FROM ${LEDGER} WHERE ${condition} LIMIT ?`,
        [...params, limit],
        Q,
      ),
      client.execute(`SELECT ${COLUMNS} FROM ${LEGACY} WHERE ${condition} LIMIT ?`, [...params, limit], Q),
    ]);
    const rows = [...now.rows, ...before.rows].map(fromRow);
    if (newest) rows.sort((a, b) => b.createdAt - a.createdAt);
    return rows.slice(0, limit);
  }

  /** Moves a pending delivery's next attempt to `atMs`, if the row is still as `basis` read it. */
  function dueAt(basis: ClaimBasis, atMs: number): Promise<boolean> {
    const w = where(basis.bucket, basis.idempotencyKey);
    return conditional(
      basis.bucket,
      basis.idempotencyKey,
      `UPDATE ${w.table} SET next_retry_at = ?, updated_at = toTimestamp(now())
       WHERE ${w.clause} IF state = 'pending' AND attempts = ? AND next_retry_at = ?`,
      [new Date(atMs), ...w.params, basis.attempts, new Date(basis.nextRetryAt)],
    );
  }

  return {
    /**
     * Records deliveries whose keys are not in the ledger yet, and answers those it recorded (a key
     * seen before, a re-delivered record or the same event twice, adds nothing). `legacyBefore`: keys
     * first queued before it are also looked for in the table before 0021, which is never added to.
     * The inserts of one bucket go as one conditional batch; when a key of it is there already, the
     * others are inserted one by one.
     */
    async enqueueAll(entries: NewDelivery[], nowMs: number, legacyBefore = 0): Promise<DeliveryRow[]> {
      const unique = [...new Map(entries.map((e) => [e.idempotencyKey, e] as const)).values()];
      const old = await inLegacy(
        unique.filter((e) => e.firstQueuedAt < legacyBefore).map((e) => e.idempotencyKey),
      );
      const now = new Date(nowMs);
      const fresh = unique.filter((e) => !old.has(e.idempotencyKey));
      const applied = await Promise.all(
        fresh.map((e) =>
          conditional(
            e.bucket,
            e.idempotencyKey,
            `INSERT INTO ${LEDGER} (bucket, idempotency_key, merchant_id, event_type, session_id, payload, event_created_at, state, attempts, next_retry_at, created_at, updated_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) IF NOT EXISTS`,
            [
              e.bucket,
              e.idempotencyKey,
              e.merchantId,
              e.eventType,
              e.sessionId,
              e.payload,
              new Date(e.eventCreatedAt),
              new Date(e.nextRetryAt),
              now,
              now,
            ],
            200 + e.payload.length + e.idempotencyKey.length,
          ),
        ),
      );
      return fresh
        .filter((_, i) => applied[i])
        .map((e) => ({
          bucket: e.bucket,
          idempotencyKey: e.idempotencyKey,
          merchantId: e.merchantId,
          eventType: e.eventType,
          sessionId: e.sessionId,
          payload: e.payload,
          state: "pending",
          attempts: 0,
          nextRetryAt: e.nextRetryAt,
          lastStatus: null,
          lastError: null,
          createdAt: nowMs,
        }));
    },

    get,

    /** Whether the table before 0021 holds any row (an upgraded ledger). */
    async hasLegacyRows(): Promise<boolean> {
      return (await client.execute(`SELECT idempotency_key FROM ${LEGACY} LIMIT 1`)).rowLength > 0;
    },

    /** A merchant's deliveries (the delivery log), newest first, at most `limit`. */
    forMerchant: (merchantId: string, limit: number): Promise<DeliveryRow[]> =>
      both("merchant_id = ?", [merchantId], limit, true),

    /** Pending deliveries due at `nowMs` (their retry time, or a dead claimer's lease, has passed). */
    due: (nowMs: number, limit: number): Promise<DeliveryRow[]> =>
      both("state = 'pending' AND next_retry_at <= ?", [new Date(nowMs)], limit),

    /**
     * Takes the next attempt of a delivery until `leaseUntil`, if the row is still as `basis` read
     * it: true when this caller owns the attempt. A claimer that dies leaves the row due again at
     * the lease's end.
     */
    claim: (basis: ClaimBasis, leaseUntil: number): Promise<boolean> => dueAt(basis, leaseUntil),

    /**
     * Gives back a claim whose attempt was never made (a process stopping with it queued): the row is
     * due at `nowMs`, so another process takes it at its next scan rather than at the lease's end.
     * false when the claim no longer held (nothing is changed then).
     */
    release: (claim: ClaimBasis, nowMs: number): Promise<boolean> => dueAt(claim, nowMs),

    /**
     * Records an attempt's outcome if the claim still holds (false: the lease ran out and another
     * process took the delivery over; its result is the one that counts).
     */
    settle(
      claim: ClaimBasis,
      next: Pick<DeliveryRow, "state" | "attempts" | "nextRetryAt" | "lastStatus" | "lastError">,
    ): Promise<boolean> {
      const w = where(claim.bucket, claim.idempotencyKey);
      return conditional(
        claim.bucket,
        claim.idempotencyKey,
        `UPDATE ${w.table} SET state = ?, attempts = ?, next_retry_at = ?, last_status = ?, last_error = ?, updated_at = toTimestamp(now())
         WHERE ${w.clause} IF attempts = ? AND next_retry_at = ?`,
        [
          next.state,
          next.attempts,
          date(next.nextRetryAt),
          next.lastStatus,
          next.lastError,
          ...w.params,
          claim.attempts,
          new Date(claim.nextRetryAt),
        ],
        200 + (next.lastError?.length ?? 0),
      );
    },

    /**
     * A manual redelivery (POST /v1/webhook_deliveries/:id/redeliver): a delivery that ended
     * `failed` is pending again, due now, with five new attempts and the same Idempotency-Key. Only
     * from `failed` and only for its merchant: false when the row is not that.
     */
    async redeliver(idempotencyKey: string, merchantId: string, nowMs: number): Promise<boolean> {
      const row = await get(idempotencyKey);
      if (!row) return false;
      const w = where(row.bucket, idempotencyKey);
      return conditional(
        row.bucket,
        idempotencyKey,
        `UPDATE ${w.table} SET state = 'pending', attempts = 0, next_retry_at = ?, last_status = null, last_error = null, updated_at = toTimestamp(now())
         WHERE ${w.clause} IF state = 'failed' AND merchant_id = ?`,
        [new Date(nowMs), ...w.params, merchantId],
      );
    },

    // The attempt log (plain rows of their own table, never written through Paxos).
    ...webhookAttempts(client),

    /** Paxos rounds this process has paid on the ledger (each conditional batch or lone write is one). */
    paxosRounds: () => batcher.rounds() + legacyRounds,
  };
}

export type WebhookDeliveries = ReturnType<typeof webhookDeliveries>;
