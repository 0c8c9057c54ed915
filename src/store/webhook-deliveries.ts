import type cassandra from "cassandra-driver";
import type { CassandraClient } from "./cassandra.ts";

/** One row of `webhook_deliveries` (migrations/0006_webhooks.cql). */
export interface DeliveryRow {
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

/** What a claim is conditioned on: the row as the claimer read it. */
export type ClaimBasis = Pick<DeliveryRow, "idempotencyKey" | "attempts"> & { nextRetryAt: number };

/** One attempt as the delivery log shows it. */
export interface AttemptRow {
  idempotencyKey: string;
  attempt: number;
  startedAt: number;
  url: string;
  /** The checked address connected to; null when refused before any connection. */
  address: string | null;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

const Q = { prepare: true } as const;
const COLUMNS =
  "idempotency_key, merchant_id, event_type, session_id, payload, state, attempts, next_retry_at, last_status, last_error, created_at";

const ms = (d: unknown): number | null => (d instanceof Date ? d.getTime() : null);

const fromRow = (r: cassandra.types.Row): DeliveryRow => ({
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

/**
 * Typed access to the delivery ledger. Every write to `webhook_deliveries` is a lightweight
 * transaction (mixing plain writes into rows written through Paxos can lose them to its timestamps).
 */
export function webhookDeliveries(client: CassandraClient) {
  return {
    /**
     * Records a delivery unless its key is in the ledger already: the row when it is new, null when
     * the key was seen before (a re-delivered record, or the same event twice). `nextRetryAt` is when
     * it is due: now, or the end of a lease when the caller makes the first attempt itself (the
     * insert is then its claim, and a scan finds the row only if the caller dies).
     */
    async enqueue(
      e: Pick<DeliveryRow, "idempotencyKey" | "merchantId" | "eventType" | "sessionId" | "payload"> & {
        eventCreatedAt: number;
      },
      nowMs: number,
      nextRetryAt: number = nowMs,
    ): Promise<DeliveryRow | null> {
      const now = new Date(nowMs);
      const rs = await client.execute(
        `INSERT INTO webhook_deliveries (idempotency_key, merchant_id, event_type, session_id, payload, event_created_at, state, attempts, next_retry_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?) IF NOT EXISTS`,
        [
          e.idempotencyKey,
          e.merchantId,
          e.eventType,
          e.sessionId,
          e.payload,
          new Date(e.eventCreatedAt),
          new Date(nextRetryAt),
          now,
          now,
        ],
        Q,
      );
      if (!rs.wasApplied()) return null;
      return {
        ...e,
        state: "pending",
        attempts: 0,
        nextRetryAt,
        lastStatus: null,
        lastError: null,
        createdAt: nowMs,
      };
    },

    async get(idempotencyKey: string): Promise<DeliveryRow | null> {
      const rs = await client.execute(
        `SELECT ${COLUMNS} FROM webhook_deliveries WHERE idempotency_key = ?`,
        [idempotencyKey],
        Q,
      );
      const row = rs.first();
      return row ? fromRow(row) : null;
    },

    /** A merchant's deliveries (the delivery log), at most `limit`, in no particular order. */
    async forMerchant(merchantId: string, limit: number): Promise<DeliveryRow[]> {
      const rs = await client.execute(
        `SELECT ${COLUMNS} FROM webhook_deliveries WHERE merchant_id = ? LIMIT ?`,
        [merchantId, limit],
        Q,
      );
      return rs.rows.map(fromRow);
    },

    /** Pending deliveries due at `nowMs` (their retry time, or a dead claimer's lease, has passed). */
    async due(nowMs: number, limit: number): Promise<DeliveryRow[]> {
      const rs = await client.execute(
        `SELECT ${COLUMNS} FROM webhook_deliveries WHERE state = 'pending' AND next_retry_at <= ? LIMIT ?`,
        [new Date(nowMs), limit],
        Q,
      );
      return rs.rows.map(fromRow);
    },

    /**
     * Takes the next attempt of a delivery until `leaseUntil`, if the row is still as `basis` read
     * it: true when this caller owns the attempt. A claimer that dies leaves the row due again at
     * the lease's end.
     */
    async claim(basis: ClaimBasis, leaseUntil: number): Promise<boolean> {
      const rs = await client.execute(
        `UPDATE webhook_deliveries SET next_retry_at = ?, updated_at = toTimestamp(now())
         WHERE idempotency_key = ? IF state = 'pending' AND attempts = ? AND next_retry_at = ?`,
        [new Date(leaseUntil), basis.idempotencyKey, basis.attempts, new Date(basis.nextRetryAt)],
        Q,
      );
      return rs.wasApplied();
    },

    /**
     * Records an attempt's outcome if the claim still holds (false: the lease ran out and another
     * process took the delivery over; its result is the one that counts).
     */
    async settle(
      claim: ClaimBasis,
      next: Pick<DeliveryRow, "state" | "attempts" | "nextRetryAt" | "lastStatus" | "lastError">,
    ): Promise<boolean> {
      const rs = await client.execute(
        `UPDATE webhook_deliveries SET state = ?, attempts = ?, next_retry_at = ?, last_status = ?, last_error = ?, updated_at = toTimestamp(now())
         WHERE idempotency_key = ? IF attempts = ? AND next_retry_at = ?`,
        [
          next.state,
          next.attempts,
          next.nextRetryAt === null ? null : new Date(next.nextRetryAt),
          next.lastStatus,
          next.lastError,
          claim.idempotencyKey,
          claim.attempts,
          new Date(claim.nextRetryAt),
        ],
        Q,
      );
      return rs.wasApplied();
    },

    /**
     * A manual redelivery (POST /v1/webhook_deliveries/:id/redeliver): a delivery that ended
     * `failed` is pending again, due now, with five new attempts and the same Idempotency-Key. Only
     * from `failed` and only for its merchant: false when the row is not that.
     */
    async redeliver(idempotencyKey: string, merchantId: string, nowMs: number): Promise<boolean> {
      const rs = await client.execute(
        `UPDATE webhook_deliveries SET state = 'pending', attempts = 0, next_retry_at = ?, last_status = null, last_error = null, updated_at = toTimestamp(now())
         WHERE idempotency_key = ? IF state = 'failed' AND merchant_id = ?`,
        [new Date(nowMs), idempotencyKey, merchantId],
        Q,
      );
      return rs.wasApplied();
    },

    async logAttempt(a: AttemptRow): Promise<void> {
      await client.execute(
        "INSERT INTO webhook_attempts (idempotency_key, attempt, started_at, url, address, status_code, duration_ms, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
          a.idempotencyKey,
          a.attempt,
          new Date(a.startedAt),
          a.url,
          a.address,
          a.statusCode,
          a.durationMs,
          a.error,
        ],
        Q,
      );
    },

    /** The attempts of a delivery, first to last. */
    async attempts(idempotencyKey: string): Promise<AttemptRow[]> {
      const rs = await client.execute(
        "SELECT idempotency_key, attempt, started_at, url, address, status_code, duration_ms, error FROM webhook_attempts WHERE idempotency_key = ?",
        [idempotencyKey],
        Q,
      );
      return rs.rows.map((r) => ({
        idempotencyKey: String(r.idempotency_key),
        attempt: Number(r.attempt),
        startedAt: ms(r.started_at) ?? 0,
        url: String(r.url),
        address: r.address ?? null,
        statusCode: r.status_code ?? null,
        durationMs: Number(r.duration_ms),
        error: r.error ?? null,
      }));
    },
  };
}

export type WebhookDeliveries = ReturnType<typeof webhookDeliveries>;
