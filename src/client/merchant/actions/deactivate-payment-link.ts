import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { PaymentLink } from "../types.ts";

export interface DeactivatePaymentLinkParameters {
  /** The link's id. */
  id: string;
  signal?: AbortSignal | undefined;
}

export type DeactivatePaymentLinkReturnType = PaymentLink;
/** An unknown id or another merchant's link is an `http` ApiError with status 404 (`link_not_found`). */
export type DeactivatePaymentLinkErrorType = ApiError;

/**
 * Deactivates a payment link (`POST /v1/payment_links/:id/deactivate`): its page takes no more
 * sessions (410). Sessions already opened from it go on. Idempotent: deactivating again answers the
 * link as it is, so the call is retried by the client's rules.
 *
 * @example
 * const link = await deactivatePaymentLink(client, { id: link.id }); // link.active === false
 */
export async function deactivatePaymentLink(
  client: MerchantClient,
  params: DeactivatePaymentLinkParameters,
): Promise<DeactivatePaymentLinkReturnType> {
  return client.request<PaymentLink>({
    method: "POST",
    path: `/v1/payment_links/${encodeURIComponent(params.id)}/deactivate`,
    signal: params.signal,
  });
}
