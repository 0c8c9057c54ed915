import type { ApiClient } from "../api-client.ts";
import { type CheckoutCredentials, checkoutHeaders } from "../checkout.ts";
import type { ApiError } from "../errors.ts";
import type { TokenOptions } from "../types.ts";

export interface GetTokenOptionsParameters {
  /** The session being paid. */
  id: string;
  /** The payer's wallet: a 0x address (every EVM chain the service settles on) or a base58 Solana key. */
  wallet: string;
  /** A checkout session's `pk_` and `cs_` (sent as headers); default the client's `checkout`. */
  checkout?: CheckoutCredentials | undefined;
  signal?: AbortSignal | undefined;
}

/** `{ wallet, ecosystem, options }`, the options sorted by `value_usd`, most valuable first. */
export type GetTokenOptionsReturnType = TokenOptions;
/** 404 for an unknown session, 400 for a wallet of no configured kind; 502 when a provider failed (retried). */
export type GetTokenOptionsErrorType = ApiError;

/**
 * What the payer's wallet can pay the session with (`GET /sessions/:id/token-options`): each token it
 * holds that the service's provider prices, on every chain, with its amount, USD price and value.
 *
 * @example
 * import { createApiClient, getTokenOptions } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const { options } = await getTokenOptions(client, { id: "<session id>", wallet: "0x<wallet>" });
 * const best = options[0]; // { chain_id, token, symbol, amount, value_usd, ... }
 */
export async function getTokenOptions(
  client: ApiClient,
  params: GetTokenOptionsParameters,
): Promise<GetTokenOptionsReturnType> {
  return client.request<TokenOptions>({
    method: "GET",
    path: `/sessions/${encodeURIComponent(params.id)}/token-options?wallet=${encodeURIComponent(params.wallet)}`,
    headers: checkoutHeaders(params.checkout ?? client.checkout),
    signal: params.signal,
  });
}
