import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { WebhookEndpointWithSecret } from "../types.ts";

export interface SetWebhookEndpointParameters {
  /** `https://…` (`http://localhost` only on a development service that allows it). */
  url: string;
  signal?: AbortSignal | undefined;
}

export type SetWebhookEndpointReturnType = WebhookEndpointWithSecret;
/**
 * An `http` ApiError: 400 `webhook_url_refused` (not https, credentials in the URL, or a host that
 * resolves to a loopback, private or otherwise blocked address; the message says which).
 */
export type SetWebhookEndpointErrorType = ApiError;

/**
 * Sets or replaces the merchant's one webhook endpoint (`PUT /v1/webhook_endpoints`). Every call
 * makes a new `whsec_` signing secret, answered here only: store it at once. Deliveries made after
 * it are signed with the new secret.
 *
 * Retried by the client's rules: a retry after a lost answer sets the endpoint again and answers a
 * newer secret, which is then the current one.
 *
 * @example
 * const { secret } = await setWebhookEndpoint(client, { url: "https://shop.example/hooks" });
 * await saveSecret(secret); // verifyWebhook's `secret`
 */
export async function setWebhookEndpoint(
  client: MerchantClient,
  params: SetWebhookEndpointParameters,
): Promise<SetWebhookEndpointReturnType> {
  return client.request<WebhookEndpointWithSecret>({
    method: "PUT",
    path: "/v1/webhook_endpoints",
    body: { url: params.url },
    signal: params.signal,
  });
}
