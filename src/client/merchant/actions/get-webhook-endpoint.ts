import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { WebhookEndpoint } from "../types.ts";

export interface GetWebhookEndpointParameters {
  signal?: AbortSignal | undefined;
}

export type GetWebhookEndpointReturnType = WebhookEndpoint;
/** No endpoint set is an `http` ApiError with status 404 (`webhook_endpoint_not_found`). */
export type GetWebhookEndpointErrorType = ApiError;

/**
 * The merchant's webhook endpoint (`GET /v1/webhook_endpoints`): `{ id, url, created_at }`, never
 * its secret (a lost secret is replaced by setting the endpoint again).
 *
 * @example
 * const { url } = await getWebhookEndpoint(client);
 */
export async function getWebhookEndpoint(
  client: MerchantClient,
  params: GetWebhookEndpointParameters = {},
): Promise<GetWebhookEndpointReturnType> {
  return client.request<WebhookEndpoint>({
    method: "GET",
    path: "/v1/webhook_endpoints",
    signal: params.signal,
  });
}
