import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { Subscription } from "../types.ts";

export interface GetSubscriptionParameters {
  /** The subscription's id (a UUID). */
  id: string;
  signal?: AbortSignal | undefined;
}

export type GetSubscriptionReturnType = Subscription;
/**
 * An `http` ApiError: 404 `subscription_not_found` for an unknown id or another merchant's
 * subscription; 400 for an id that is not a UUID.
 */
export type GetSubscriptionErrorType = ApiError;

/**
 * One of the merchant's subscriptions (`GET /v1/subscriptions/:id`): its mandate, status, the last
 * period charged and when the next charge is due.
 *
 * @example
 * const { status, last_charged_period } = await getSubscription(client, { id: sub.id });
 */
export async function getSubscription(
  client: MerchantClient,
  params: GetSubscriptionParameters,
): Promise<GetSubscriptionReturnType> {
  return client.request<Subscription>({
    method: "GET",
    path: `/v1/subscriptions/${encodeURIComponent(params.id)}`,
    signal: params.signal,
  });
}
