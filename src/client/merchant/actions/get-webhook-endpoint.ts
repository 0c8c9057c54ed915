import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { WebhookEndpoint } from "../types.ts";

export interface GetWebhookEndpointParameters {
  signal?: AbortSignal | undefined;
}

/** null when no endpoint is set (the interface: "the configured endpoint object or null"). */
export type GetWebhookEndpointReturnType = WebhookEndpoint | null;
export type GetWebhookEndpointErrorType = ApiError;

/**
 * The merchant's webhook endpoint (`GET /v1/webhook_endpoints`): `{ id, url, created_at }`, never
 * its secret (a lost secret is replaced by setting the endpoint again).
 *
 * @example
 * const endpoint = await getWebhookEndpoint(client);
 * if (endpoint === null) console.log("no webhook endpoint set");
 */
export async function getWebhookEndpoint(
  client: MerchantClient,
  params: GetWebhookEndpointParameters = {},
): Promise<GetWebhookEndpointReturnType> {
  return client.request<WebhookEndpoint | null>({
    method: "GET",
    path: "/v1/webhook_endpoints",
    signal: params.signal,
  });
}
