import type { CassandraClient } from "./cassandra.ts";

/** One row of `webhook_endpoints` (migrations/0006_webhooks.cql): a merchant's one webhook endpoint. */
export interface WebhookEndpointRow {
  merchantId: string;
  endpointId: string;
  url: string;
  /** The `whsec_` signing secret. */
  secret: string;
}

const Q = { prepare: true } as const;

/**
 * Typed access to `webhook_endpoints`. Today tests fill it; the PUT /v1/webhook_endpoints route
 * will, until the merchant entity's projection takes its place behind the EndpointDirectory port
 * (src/webhooks/endpoints.ts).
 */
export function webhookEndpoints(client: CassandraClient) {
  return {
    async get(merchantId: string): Promise<WebhookEndpointRow | null> {
      const rs = await client.execute(
        "SELECT merchant_id, endpoint_id, url, secret FROM webhook_endpoints WHERE merchant_id = ?",
        [merchantId],
        Q,
      );
      const r = rs.first();
      return r
        ? {
            merchantId: String(r.merchant_id),
            endpointId: String(r.endpoint_id),
            url: String(r.url),
            secret: String(r.secret),
          }
        : null;
    },

    /** Sets or replaces the merchant's endpoint (one per merchant). */
    async put(row: WebhookEndpointRow): Promise<void> {
      await client.execute(
        "INSERT INTO webhook_endpoints (merchant_id, endpoint_id, url, secret, created_at, updated_at) VALUES (?, ?, ?, ?, toTimestamp(now()), toTimestamp(now()))",
        [row.merchantId, row.endpointId, row.url, row.secret],
        Q,
      );
    },

    async remove(merchantId: string): Promise<void> {
      await client.execute("DELETE FROM webhook_endpoints WHERE merchant_id = ?", [merchantId], Q);
    },
  };
}

export type WebhookEndpoints = ReturnType<typeof webhookEndpoints>;
