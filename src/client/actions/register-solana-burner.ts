import type { Keypair } from "@solana/web3.js";
import type { ApiClient } from "../api-client.ts";
import { type CheckoutCredentials, checkoutHeaders } from "../checkout.ts";
import type { ApiError, ClientError } from "../errors.ts";
import type { SolanaBurnerBody, SolanaBurnerResponse } from "../types.ts";
import { signSolanaRegistration } from "./sign-solana-registration.ts";

export interface RegisterSolanaBurnerParameters {
  /** The Solana-origin session (`createSolanaSession`). */
  id: string;
  /** The session's burner (makeSolanaBurner): it signs the registration message. */
  burner: Keypair;
  /**
   * The bounce setup the burner signed (`signSolanaBounceSetup`, base64), naming the session's
   * `refund_address`: without it the service cannot bounce the burner's USDC. The service relays it
   * once a deposit is recorded, so sign it then (the same burner registers again with it, once,
   * until the sweep is committed): one signed before would have expired for a slow payer.
   */
  bounceSetup?: string | undefined;
  /** A merchant's Solana checkout session: its `pk_` and `cs_` (sent as headers); default the client's `checkout`. */
  checkout?: CheckoutCredentials | undefined;
  signal?: AbortSignal | undefined;
}

export type RegisterSolanaBurnerReturnType = SolanaBurnerResponse;
/**
 * ApiError: 409 `already_registered` (another burner holds the slot, or a setup is already attached),
 * `not_solana_session`, `wrong_status` (no longer `pending`; for a setup, committed or ended); 400 for a
 * setup that is not the one this burner must sign.
 * ClientError `wallet_error` when the registration could not be signed.
 */
export type RegisterSolanaBurnerErrorType = ApiError | ClientError<"wallet_error">;

/**
 * Registers the payer's Solana burner on its session (`POST /sessions/:id/solana-burner`): the
 * burner's address, its ed25519 signature of `deposit-settlement:solana-burner:<session id>`
 * (`signSolanaRegistration`) and, when given, its bounce setup. Once, while the session is `pending`,
 * and once more by the same burner to add its setup; the same registration retried is answered as the
 * first, so the client's retries are safe.
 *
 * @example
 * import { createApiClient, registerSolanaBurner } from "deposit-settlement/client";
 * await registerSolanaBurner(client, { id, burner: burner.keypair });
 * console.log(`pay to ${burner.address}`);
 */
export async function registerSolanaBurner(
  client: ApiClient,
  params: RegisterSolanaBurnerParameters,
): Promise<RegisterSolanaBurnerReturnType> {
  const body: SolanaBurnerBody = {
    burner_address: params.burner.publicKey.toBase58(),
    signature: await signSolanaRegistration({ sessionId: params.id, burner: params.burner }),
    ...(params.bounceSetup === undefined ? {} : { bounce_setup: params.bounceSetup }),
  };
  return client.request<SolanaBurnerResponse>({
    method: "POST",
    path: `/sessions/${encodeURIComponent(params.id)}/solana-burner`,
    body,
    headers: checkoutHeaders(params.checkout ?? client.checkout),
    signal: params.signal,
  });
}
