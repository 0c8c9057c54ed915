import type { ApiError, ClientError } from "../../errors.ts";
import { baseUnits } from "../amount.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { PaymentLink } from "../types.ts";

export interface CreatePaymentLinkParameters {
  /** What each payer pays, USDC base units (6 decimals): digits only, refused before any request. */
  amount: string | bigint;
  /** Shown on the hosted page; 1 to 500 characters. */
  description?: string | undefined;
  /** Unix seconds, in the future; after it the link takes no sessions (410). Default never. */
  expiresAt?: number | undefined;
  signal?: AbortSignal | undefined;
}

export type CreatePaymentLinkReturnType = PaymentLink;
/**
 * `ClientError` `config_error` for an amount with a non-digit (no request made); an `http` ApiError
 * 400 for a value the service refuses. A `network` or `timeout` ApiError or a 5xx is thrown after
 * one try: the link may have been created.
 */
export type CreatePaymentLinkErrorType = ApiError | ClientError<"config_error">;

/**
 * Creates a payment link (`POST /v1/payment_links`): a hosted page at the answer's `url`, to share
 * with payers, where each visit can open a checkout session for `amount`.
 *
 * Every call creates a link and the route takes no Idempotency-Key, so only a 429 is retried: after
 * a timeout, a network failure or a 5xx a link may exist that the answer never brought.
 *
 * @example
 * const { url } = await createPaymentLink(client, { amount: "25000000", description: "T-shirt" });
 */
export async function createPaymentLink(
  client: MerchantClient,
  params: CreatePaymentLinkParameters,
): Promise<CreatePaymentLinkReturnType> {
  const amount = baseUnits(params.amount, "createPaymentLink");
  return client.request<PaymentLink>({
    method: "POST",
    path: "/v1/payment_links",
    body: {
      amount,
      ...(params.description === undefined ? {} : { description: params.description }),
      ...(params.expiresAt === undefined ? {} : { expires_at: params.expiresAt }),
    },
    idempotent: false,
    signal: params.signal,
  });
}
