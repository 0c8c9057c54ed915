import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { SolanaBlockhash } from "../types.ts";

export interface GetSolanaBlockhashParameters {
  /** The Solana chain's id; default the service's one Solana chain. */
  chainId?: number | undefined;
  signal?: AbortSignal | undefined;
}

export type GetSolanaBlockhashReturnType = SolanaBlockhash;
/** 502 when the service's Solana RPC does not answer (retried); 400 `chain_unsupported` for another chain. */
export type GetSolanaBlockhashErrorType = ApiError;

/**
 * The Solana chain's newest blockhash at `confirmed` (`GET /solana/blockhash`), for a transaction the
 * burner signs and the service relays: the bounce setup and the sweep. It is good for about 150 blocks
 * (~60 s): read it just before signing. The payer needs no RPC of its own for this.
 *
 * @example
 * import { createApiClient, getSolanaBlockhash } from "deposit-settlement/client";
 * const { blockhash, lastValidBlockHeight } = await getSolanaBlockhash(client, {});
 */
export async function getSolanaBlockhash(
  client: ApiClient,
  params: GetSolanaBlockhashParameters = {},
): Promise<GetSolanaBlockhashReturnType> {
  const query = params.chainId === undefined ? "" : `?chain_id=${params.chainId}`;
  return client.request<SolanaBlockhash>({
    method: "GET",
    path: `/solana/blockhash${query}`,
    signal: params.signal,
  });
}
