import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { Balances } from "../types.ts";

export interface GetBalancesParameters {
  /** A 0x address (EVM: every chain the service settles on) or a base58 Solana public key. */
  address: string;
  signal?: AbortSignal | undefined;
}

/** `{ address, ecosystem, balances }`, the balances sorted by `value_usd`, most valuable first. */
export type GetBalancesReturnType = Balances;
/** 400 for an address of no configured kind; 502 when a provider failed (retried). */
export type GetBalancesErrorType = ApiError;

/**
 * A wallet's payable balances without a session (`GET /balances?address=`): the same entries as the
 * token options, for a wallet UI that shows them before any session exists.
 *
 * @example
 * import { createApiClient, getBalances } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const { balances } = await getBalances(client, { address: "0x<wallet>" });
 */
export async function getBalances(
  client: ApiClient,
  params: GetBalancesParameters,
): Promise<GetBalancesReturnType> {
  return client.request<Balances>({
    method: "GET",
    path: `/balances?address=${encodeURIComponent(params.address)}`,
    signal: params.signal,
  });
}
