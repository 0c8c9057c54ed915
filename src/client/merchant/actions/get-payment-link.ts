import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { PaymentLink } from "../types.ts";

export interface GetPaymentLinkParameters {
  /** The link's id, from createPaymentLink's answer. */
  id: string;
  signal?: AbortSignal | undefined;
}

export type GetPaymentLinkReturnType = PaymentLink;
/** An unknown id or another merchant's link is an `http` ApiError with status 404 (`link_not_found`). */
export type GetPaymentLinkErrorType = ApiError;

/**
 * One of the merchant's payment links (`GET /v1/payment_links/:id`).
 *
 * @example
 * const { active, url } = await getPaymentLink(client, { id: link.id });
 */
export async function getPaymentLink(
  client: MerchantClient,
  params: GetPaymentLinkParameters,
): Promise<GetPaymentLinkReturnType> {
  return client.request<PaymentLink>({
    method: "GET",
    path: `/v1/payment_links/${encodeURIComponent(params.id)}`,
    signal: params.signal,
  });
}
