import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { Subscription } from "../types.ts";

export interface CancelSubscriptionParameters {
  /** The subscription's id (a UUID). */
  id: string;
  signal?: AbortSignal | undefined;
}

export type CancelSubscriptionReturnType = Subscription;
/** An unknown id or another merchant's subscription is an `http` ApiError with status 404. */
export type CancelSubscriptionErrorType = ApiError;

/**
 * Cancels a subscription (`POST /v1/subscriptions/:id/cancel`): nothing is charged after it.
 * Idempotent: a canceled subscription answers as it is (the first cancel's `canceled_by` stays), so
 * the call is retried by the client's rules.
 *
 * @example
 * const sub = await cancelSubscription(client, { id }); // sub.status === "canceled"
 */
export async function cancelSubscription(
  client: MerchantClient,
  params: CancelSubscriptionParameters,
): Promise<CancelSubscriptionReturnType> {
  return client.request<Subscription>({
    method: "POST",
    path: `/v1/subscriptions/${encodeURIComponent(params.id)}/cancel`,
    signal: params.signal,
  });
}
