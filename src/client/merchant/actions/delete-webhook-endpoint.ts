import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";

export interface DeleteWebhookEndpointParameters {
  signal?: AbortSignal | undefined;
}

export type DeleteWebhookEndpointReturnType = undefined;
/**
 * No endpoint set is an `http` ApiError with status 404 (`webhook_endpoint_not_found`), which is
 * also what a retry of a removal the service already made answers.
 */
export type DeleteWebhookEndpointErrorType = ApiError;

/**
 * Removes the merchant's webhook endpoint (`DELETE /v1/webhook_endpoints`, 204). Events after it
 * are not delivered (their deliveries end `skipped`); they stay in the event list.
 *
 * @example
 * await deleteWebhookEndpoint(client);
 */
export async function deleteWebhookEndpoint(
  client: MerchantClient,
  params: DeleteWebhookEndpointParameters = {},
): Promise<DeleteWebhookEndpointReturnType> {
  await client.request<undefined>({
    method: "DELETE",
    path: "/v1/webhook_endpoints",
    signal: params.signal,
  });
}
