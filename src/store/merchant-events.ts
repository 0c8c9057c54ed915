import { createHash } from "node:crypto";
import type cassandra from "cassandra-driver";
import type { WebhookEvent } from "../records/webhook-events.ts";
import type { CassandraClient } from "./cassandra.ts";

/** How long an event stays listed: 30 days, as GET /v1/events promises (docs/WEBHOOKS.md). */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** One event of the event list (migrations/0008_merchant_events.cql). */
export interface MerchantEventRow {
  id: string;
  merchantId: string;
  type: string;
  /** Unix ms: when the event was first queued. */
  createdAt: number;
  idempotencyKey: string;
  sessionId: string | null;
  /** The webhook body, a JSON text. */
  payload: string;
}

/** Where a page starts: the event the previous page ended with (its clustering position). */
export type EventCursor = Pick<MerchantEventRow, "createdAt" | "id">;

/**
 * The event id (EVENT_ID, src/domain/webhooks.ts) of an Idempotency-Key: `evt_` + the first 128 bits of its SHA-256 in hex. Derived, not
 * drawn, so every process that sees the key (and a re-delivered record) names the event the same.
 */
export const eventIdOf = (idempotencyKey: string): string =>
  `evt_${createHash("sha256").update(idempotencyKey, "utf8").digest("hex").slice(0, 32)}`;

/**
 * Seconds an event created at `createdAt` has left of its 30 days at `nowMs` (a TTL counts from the
 * write, and a record can be worked late); 0 or less when it is too old to list.
 */
export const ttlSecondsLeft = (createdAt: number, nowMs: number): number =>
  Math.ceil((createdAt + EVENT_RETENTION_MS - nowMs) / 1000);

const Q = { prepare: true } as const;
const COLUMNS = "event_id, merchant_id, event_type, created_at, idempotency_key, session_id, payload";

const fromRow = (r: cassandra.types.Row): MerchantEventRow => ({
  id: String(r.event_id),
  merchantId: String(r.merchant_id),
  type: String(r.event_type),
  createdAt: r.created_at instanceof Date ? r.created_at.getTime() : 0,
  idempotencyKey: String(r.idempotency_key),
  sessionId: r.session_id ?? null,
  payload: String(r.payload),
});

/** Typed access to the event list: the webhooks worker records, the GET /v1/events routes read. */
export function merchantEvents(client: CassandraClient) {
  /** The event with this id, whoever's it is (the caller checks the merchant), or null. */
  async function get(id: string): Promise<MerchantEventRow | null> {
    const rs = await client.execute(
      `SELECT ${COLUMNS} FROM merchant_events_by_id WHERE event_id = ?`,
      [id],
      Q,
    );
    const row = rs.first();
    return row ? fromRow(row) : null;
  }

  return {
    get,

    /**
     * The event a WebhookEvent is, as the list has it or will: the first record of a key decides its
     * event (created time and all), so a later one (a re-delivery, the same key queued again after a
     * reorg) is the event as first recorded. A read only; `store` writes it.
     *
     * A read, then plain writes, not a lightweight transaction (one Paxos round more per event, on a
     * path their rate bounds): the records of one key share a merchant, hence a partition, and are
     * worked one at a time in offset order by whichever process works them, so a process reads for
     * a later record only after it wrote the earlier one itself, or after that one was committed.
     */
    async recall(e: WebhookEvent): Promise<MerchantEventRow> {
      const first = await get(eventIdOf(e.idempotencyKey));
      return (
        first ?? {
          id: eventIdOf(e.idempotencyKey),
          merchantId: e.merchantId,
          type: e.eventType,
          createdAt: e.createdAt,
          idempotencyKey: e.idempotencyKey,
          sessionId: e.sessionId,
          payload: e.payload,
        }
      );
    },

    /** Writes an event `recall` answered; null (nothing written) when it is past 30 days. */
    async store(row: MerchantEventRow, nowMs: number): Promise<MerchantEventRow | null> {
      const ttl = ttlSecondsLeft(row.createdAt, nowMs);
      if (ttl <= 0) return null;
      const values = [
        row.id,
        row.merchantId,
        row.type,
        new Date(row.createdAt),
        row.idempotencyKey,
        row.sessionId,
        row.payload,
        ttl,
      ];
      // The same values each time, so repeating either write (the record worked again after a
      // crash between them) changes nothing; independent, so side by side.
      const insert = (table: string) =>
        client.execute(
          `INSERT INTO ${table} (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) USING TTL ?`,
          values,
          Q,
        );
      await Promise.all([insert("merchant_events_by_id"), insert("merchant_events")]);
      return row;
    },

    /**
     * Up to `limit` of a merchant's events, newest first, after `after` when given (exclusive), of
     * `type` only when given.
     */
    async page(
      merchantId: string,
      opts: { limit: number; after?: EventCursor | undefined; type?: string | undefined },
    ): Promise<MerchantEventRow[]> {
      const where = ["merchant_id = ?"];
      const params: unknown[] = [merchantId];
      if (opts.after) {
        // Tuple order is the clustering order's: earlier time, or the same time and a smaller id.
        where.push("(created_at, event_id) < (?, ?)");
        params.push(new Date(opts.after.createdAt), opts.after.id);
      }
      if (opts.type !== undefined) {
        where.push("event_type = ?");
        params.push(opts.type);
      }
      params.push(opts.limit);
      const rs = await client.execute(
        `SELECT ${COLUMNS} FROM merchant_events WHERE ${where.join(" AND ")} LIMIT ?`,
        params,
        Q,
      );
      return rs.rows.map(fromRow);
    },
  };
}

export type MerchantEvents = ReturnType<typeof merchantEvents>;
