import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { CreateSolanaSessionBody, CreateSolanaSessionResponse } from "../types.ts";

export interface CreateSolanaSessionParameters {
  /**
   * Where the settled USDC goes: a base58 wallet on the Solana chain itself (paid by the sweep), or a
   * 0x address on a configured EVM chain (paid by the fast fill; docs/SOLANA.md).
   */
  destination: { address: string; chainId: number };
  /**
   * The payer's wallet (base58) the automatic bounce returns the burner's USDC to when the session
   * expires or fails. The burner must then sign the same address in its bounce setup
   * (`signSolanaBounceSetup`, sent by `registerSolanaBurner`).
   */
  refundAddress?: string | undefined;
  /** Generated when left out: one key for every try, so a retry never opens a second session. */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type CreateSolanaSessionReturnType = CreateSolanaSessionResponse;
/** A 400 names the field (a key that is not base58, a destination in the wrong family, `chain_unsupported`). */
export type CreateSolanaSessionErrorType = ApiError;

/**
 * Opens a Solana-origin session (`POST /sessions/solana`); it starts `pending`. The answer's `sweep`
 * holds what the sweep the burner signs after detection must pay (`signSolanaSweep`): keep it. The
 * burner is registered afterwards (`registerSolanaBurner`), with the proof that the payer holds its key.
 * Retried by the client's rules under one Idempotency-Key.
 *
 * @example
 * import { createApiClient, createSolanaSession } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const { id, sweep } = await createSolanaSession(client, {
 *   destination: { address: "<base58 wallet>", chainId: 792703810 },
 * });
 */
export async function createSolanaSession(
  client: ApiClient,
  params: CreateSolanaSessionParameters,
): Promise<CreateSolanaSessionReturnType> {
  const body: CreateSolanaSessionBody = {
    destination_address: params.destination.address,
    destination_chain: params.destination.chainId,
    ...(params.refundAddress === undefined ? {} : { refund_address: params.refundAddress }),
  };
  return client.request<CreateSolanaSessionResponse>({
    method: "POST",
    path: "/sessions/solana",
    body,
    headers: { "idempotency-key": params.idempotencyKey ?? crypto.randomUUID() },
    signal: params.signal,
  });
}
