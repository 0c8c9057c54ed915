import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { WebhookDelivery } from "../types.ts";

export interface GetWebhookDeliveryParameters {
  /** The delivery's id: its Idempotency-Key, as the receiver saw it and the log lists it. */
  id: string;
  signal?: AbortSignal | undefined;
}

export type GetWebhookDeliveryReturnType = WebhookDelivery;
/** An unknown id, or another merchant's delivery, is an `http` ApiError with status 404. */
export type GetWebhookDeliveryErrorType = ApiError;

/**
 * One webhook delivery with its attempts (`GET /v1/webhook_deliveries/:id`).
 *
 * @example
 * const delivery = await getWebhookDelivery(client, { id: req.headers["idempotency-key"] });
 * console.log(delivery.state, delivery.attempt_log.at(-1)?.status_code);
 */
export async function getWebhookDelivery(
  client: MerchantClient,
  params: GetWebhookDeliveryParameters,
): Promise<GetWebhookDeliveryReturnType> {
  return client.request<WebhookDelivery>({
    method: "GET",
    path: `/v1/webhook_deliveries/${encodeURIComponent(params.id)}`,
    signal: params.signal,
  });
}
