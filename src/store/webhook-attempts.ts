import type { CassandraClient } from "./cassandra.ts";

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
const ms = (d: unknown): number => (d instanceof Date ? d.getTime() : 0);

/** The attempt log of the webhook deliveries (`webhook_attempts`, migrations/0006_webhooks.cql). */
export function webhookAttempts(client: CassandraClient) {
  return {
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
        startedAt: ms(r.started_at),
        url: String(r.url),
        address: r.address ?? null,
        statusCode: r.status_code ?? null,
        durationMs: Number(r.duration_ms),
        error: r.error ?? null,
      }));
    },
  };
}
