import type { MerchantEvent } from "../domain/merchant/types.ts";
import type { CassandraClient } from "./cassandra.ts";

/** One row of `webhook_endpoints` (migrations/0006_webhooks.cql): a merchant's one webhook endpoint. */
export interface WebhookEndpointRow {
  merchantId: string;
  endpointId: string;
  url: string;
  /** The `whsec_` signing secret. */
  secret: string;
  /** Unix ms: when this endpoint was set (null for a row written without it). */
  createdAt?: number | null;
}

const Q = { prepare: true } as const;

/**
 * Typed access to `webhook_endpoints`: the merchant projection writes it from the merchant's
 * WebhookEndpointSet / WebhookEndpointRemoved events (`project`), the webhooks worker and the
 * GET /v1/webhook_endpoints route read it; the gateway keeps each new endpoint's secret with
 * `putSecret` (migration 0013), never in the journal. `put` and `remove` are for tests that need a
 * row without a merchant.
 */
export function webhookEndpoints(client: CassandraClient) {
  const secretOf = async (endpointId: string): Promise<string | null> => {
    const rs = await client.execute(
      "SELECT secret FROM webhook_endpoint_secrets WHERE endpoint_id = ?",
      [endpointId],
      Q,
    );
    return (rs.first()?.secret as string | null | undefined) ?? null;
  };
  return {
    async get(merchantId: string): Promise<WebhookEndpointRow | null> {
      const rs = await client.execute(
        "SELECT merchant_id, endpoint_id, url, secret, created_at FROM webhook_endpoints WHERE merchant_id = ?",
        [merchantId],
        Q,
      );
      const r = rs.first();
      if (!r) return null;
      const endpointId = String(r.endpoint_id);
      // Endpoints set since secrets left the journal keep theirs in webhook_endpoint_secrets.
      const secret = (r.secret as string | null) ?? (await secretOf(endpointId));
      if (secret === null) return null; // nothing could sign its deliveries
      return {
        merchantId: String(r.merchant_id),
        endpointId,
        url: String(r.url),
        secret,
        createdAt: r.created_at ? (r.created_at as Date).getTime() : null,
      };
    },

    /** Keeps a new endpoint's signing secret, before the command that sets the endpoint is sent. */
    async putSecret(merchantId: string, endpointId: string, secret: string): Promise<void> {
      await client.execute(
        "INSERT INTO webhook_endpoint_secrets (endpoint_id, merchant_id, secret, created_at) VALUES (?, ?, ?, toTimestamp(now()))",
        [endpointId, merchantId, secret],
        Q,
      );
    },

    /**
     * Writes one merchant event's share of the table. Write time = the merchant's version (as the
     * merchant projection does), so a replayed or re-delivered older event never undoes a newer one:
     * a Set replayed after a Remove stays removed. The secret is written only from events that
     * carried one (written before secrets left the journal); others find it by endpoint id.
     */
    async project(event: MerchantEvent): Promise<void> {
      const { merchantId, version, occurredAt } = event.metadata;
      const at = BigInt(version);
      if (event.type === "WebhookEndpointSet") {
        const { endpointId, url, secret } = event.data;
        const when = new Date(occurredAt);
        await client.execute(
          `INSERT INTO webhook_endpoints (merchant_id, endpoint_id, url, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) USING TIMESTAMP ${at}`,
          [merchantId, endpointId, url, secret, when, when],
          Q,
        );
      } else if (event.type === "WebhookEndpointRemoved") {
        await client.execute(
          `DELETE FROM webhook_endpoints USING TIMESTAMP ${at} WHERE merchant_id = ?`,
          [merchantId],
          Q,
        );
      }
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
