import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { Mandate, Subscription } from "../types.ts";

export interface CreateSubscriptionParameters {
  /** The chain whose SubscriptionManager the mandate is signed for. */
  chainId: number;
  /** The EIP-712 Mandate exactly as the payer signed it (`amount` a decimal string of base units). */
  mandate: Mandate;
  /** The payer's EIP-712 signature of the mandate, 0x hex. */
  signature: string;
  signal?: AbortSignal | undefined;
}

export type CreateSubscriptionReturnType = Subscription;
/**
 * An `http` ApiError: 400 `chain_unsupported`, `mandate_invalid` (the message names the rule) or
 * `mandate_signature_invalid`; 409 `subscription_exists` when the mandate's digest is registered.
 */
export type CreateSubscriptionErrorType = ApiError;

/**
 * Registers a payer-signed mandate (`POST /v1/subscriptions`, 201): the service charges it each
 * period from `mandate.start`. The id is derived from the mandate's digest, so a mandate is
 * registered once; a retry by the client's rules never makes a second subscription, but a retry
 * whose first try went through answers 409 `subscription_exists`: that subscription is then yours,
 * and its `subscription.created` event (listEvents) carries its id.
 *
 * @example
 * const sub = await createSubscription(client, { chainId: 8453, mandate, signature });
 * console.log(sub.id, sub.next_charge_at);
 */
export async function createSubscription(
  client: MerchantClient,
  params: CreateSubscriptionParameters,
): Promise<CreateSubscriptionReturnType> {
  return client.request<Subscription>({
    method: "POST",
    path: "/v1/subscriptions",
    body: { chain_id: params.chainId, mandate: params.mandate, signature: params.signature },
    signal: params.signal,
  });
}
