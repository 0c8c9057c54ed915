import type { Keypair } from "@solana/web3.js";
import type { ApiClient } from "../api-client.ts";
import type { ApiError, ClientError } from "../errors.ts";
import type { CreateSolanaSessionBody, CreateSolanaSessionResponse } from "../types.ts";
import { signSolanaSession } from "./sign-solana-session.ts";

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
  /**
   * The burner to name at creation (makeSolanaBurner's `keypair`): it signs the creation message
   * (`signSolanaSession`), the proof the service asks of a burner named here. Left out, the burner is
   * registered afterwards (`registerSolanaBurner`), which can also carry its bounce setup.
   */
  burner?: Keypair | undefined;
  /** Generated when left out: one key for every try, so a retry never opens a second session. */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type CreateSolanaSessionReturnType = CreateSolanaSessionResponse;
/**
 * ApiError: a 400 names the field (a key that is not base58, a destination in the wrong family,
 * `chain_unsupported`, a burner that is one of the service's own addresses). ClientError
 * `wallet_error` when the burner could not sign.
 */
export type CreateSolanaSessionErrorType = ApiError | ClientError<"wallet_error">;

/**
 * Opens a Solana-origin session (`POST /sessions/solana`); it starts `pending`. The answer's `sweep`
 * holds what the sweep the burner signs after detection must pay (`signSolanaSweep`): keep it. The
 * burner is named here (`burner`) or registered afterwards (`registerSolanaBurner`), either way with
 * the proof that the payer holds its key. Retried by the client's rules under one Idempotency-Key
 * (the burner's ed25519 signature is deterministic: every try sends the same body).
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
    ...(params.burner === undefined
      ? {}
      : {
          burner_address: params.burner.publicKey.toBase58(),
          burner_signature: await signSolanaSession({ ...params, burner: params.burner }),
        }),
  };
  return client.request<CreateSolanaSessionResponse>({
    method: "POST",
    path: "/sessions/solana",
    body,
    headers: { "idempotency-key": params.idempotencyKey ?? crypto.randomUUID() },
    signal: params.signal,
  });
}
