import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { WebhookDelivery } from "../types.ts";

export interface RedeliverWebhookParameters {
  /** The id of a delivery that ended `failed`. */
  id: string;
  signal?: AbortSignal | undefined;
}

export type RedeliverWebhookReturnType = WebhookDelivery;
/**
 * An `http` ApiError: 404 for an unknown id or another merchant's delivery, 409
 * (`delivery_not_failed`) for a delivery that is not `failed`, which is also what a retry of a
 * redelivery the service already made answers.
 */
export type RedeliverWebhookErrorType = ApiError;

/**
 * Sends a delivery that ended `failed` again (`POST /v1/webhook_deliveries/:id/redeliver`): five
 * new attempts with the same Idempotency-Key, so a receiver that dedupes by it stays correct.
 * Answers the delivery, `pending` again.
 *
 * @example
 * for (const d of await listWebhookDeliveries(client))
 *   if (d.state === "failed") await redeliverWebhook(client, { id: d.id });
 */
export async function redeliverWebhook(
  client: MerchantClient,
  params: RedeliverWebhookParameters,
): Promise<RedeliverWebhookReturnType> {
  return client.request<WebhookDelivery>({
    method: "POST",
    path: `/v1/webhook_deliveries/${encodeURIComponent(params.id)}/redeliver`,
    signal: params.signal,
  });
}
