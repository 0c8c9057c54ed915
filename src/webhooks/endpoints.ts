import type { WebhookEndpoints } from "../store/webhook-endpoints.ts";

/** Where a merchant's webhooks go: its endpoint URL and `whsec_` signing secret. */
export interface WebhookEndpoint {
  url: string;
  secret: string;
}

/**
 * The worker's one question about merchants. Backed today by the webhook_endpoints table; the
 * merchant entity's projection can take its place without the worker changing.
 */
export interface EndpointDirectory {
  endpointFor(merchantId: string): Promise<WebhookEndpoint | null>;
}

export function tableEndpointDirectory(table: WebhookEndpoints): EndpointDirectory {
  return {
    async endpointFor(merchantId) {
      const row = await table.get(merchantId);
      return row ? { url: row.url, secret: row.secret } : null;
    },
  };
}
