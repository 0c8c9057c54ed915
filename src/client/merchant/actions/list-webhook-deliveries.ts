import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { WebhookDelivery } from "../types.ts";

export interface ListWebhookDeliveriesParameters {
  /** How many, newest first: 1 to 100. Default (the service's) 50. */
  limit?: number | undefined;
  signal?: AbortSignal | undefined;
}

export type ListWebhookDeliveriesReturnType = WebhookDelivery[];
/** A limit outside 1..100 is an `http` ApiError with status 400. */
export type ListWebhookDeliveriesErrorType = ApiError;

/**
 * The merchant's webhook deliveries (`GET /v1/webhook_deliveries`), newest first, each with its
 * state and every attempt (status code, address, timing, error). Answers the list, not the
 * `{ data }` envelope.
 *
 * @example
 * const failed = (await listWebhookDeliveries(client, { limit: 100 })).filter((d) => d.state === "failed");
 */
export async function listWebhookDeliveries(
  client: MerchantClient,
  params: ListWebhookDeliveriesParameters = {},
): Promise<ListWebhookDeliveriesReturnType> {
  const query = params.limit === undefined ? "" : `?limit=${encodeURIComponent(params.limit)}`;
  const { data } = await client.request<{ data: WebhookDelivery[] }>({
    method: "GET",
    path: `/v1/webhook_deliveries${query}`,
    signal: params.signal,
  });
  return data;
}
