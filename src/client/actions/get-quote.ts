import type { ApiClient } from "../api-client.ts";
import { type CheckoutCredentials, checkoutHeaders } from "../checkout.ts";
import type { ApiError } from "../errors.ts";
import type { Quote } from "../types.ts";

export interface GetQuoteParameters {
  id: string;
  /** A checkout session's `pk_` and `cs_` (sent as headers); default the client's `checkout`. */
  checkout?: CheckoutCredentials | undefined;
  signal?: AbortSignal | undefined;
}

/** `estimated_out` and `suggested_min_out`: decimal USDC base units on the source chain. */
export type GetQuoteReturnType = Quote;
/** A 4xx when there is nothing to quote (no deposit yet, a USDC deposit); 502 when the chain did not answer (retried). */
export type GetQuoteErrorType = ApiError;

/**
 * Reads the slippage floor for swapping the detected token to USDC on the source chain
 * (`GET /sessions/:id/quote`): `suggested_min_out` = floor(estimated_out × (1 − the service's
 * slippage tolerance)), the `min_out` to sign. A USDC deposit is not swapped and needs no quote.
 *
 * @example
 * import { createApiClient, getQuote } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const { suggested_min_out } = await getQuote(client, { id: "<session id>" });
 */
export async function getQuote(client: ApiClient, params: GetQuoteParameters): Promise<GetQuoteReturnType> {
  return client.request<Quote>({
    method: "GET",
    path: `/sessions/${encodeURIComponent(params.id)}/quote`,
    headers: checkoutHeaders(params.checkout ?? client.checkout),
    signal: params.signal,
  });
}
