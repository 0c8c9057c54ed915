import type { Keypair } from "@solana/web3.js";
import type { ClientError } from "../errors.ts";
import { signWithBurner } from "./sign-solana-registration.ts";

export interface SignSolanaSessionParameters {
  /** The session's burner (makeSolanaBurner), named in `POST /sessions/solana` itself. */
  burner: Keypair;
  /** What the creation's body asks, exactly as sent: the message names it, so the proof is good for no other. */
  destination: { address: string; chainId: number };
  /** The body's `refund_address`, when it has one. */
  refundAddress?: string | undefined;
}

/** The burner's ed25519 signature of the creation message, base58: the body's `burner_signature`. */
export type SignSolanaSessionReturnType = string;
/** `wallet_error` when the platform's WebCrypto cannot sign with Ed25519. */
export type SignSolanaSessionErrorType = ClientError<"wallet_error">;

/**
 * What the burner signs to be named at creation (docs/SOLANA.md, `POST /sessions/solana`): the
 * session id does not exist yet, so the message names what the body asks of the session instead.
 */
export const solanaSessionMessage = (params: Omit<SignSolanaSessionParameters, "burner">): Uint8Array =>
  new TextEncoder().encode(
    `deposit-settlement:solana-session:${params.destination.chainId}:${params.destination.address}:${params.refundAddress ?? ""}`,
  );

/**
 * Signs `deposit-settlement:solana-session:<destination_chain>:<destination_address>:<refund_address>`
 * with the burner's key: the service watches a burner named at creation only with this proof that
 * the caller holds its key. `createSolanaSession` with `burner` signs it itself.
 *
 * @example
 * import { makeSolanaBurner, signSolanaSession } from "deposit-settlement/client";
 * const burner = makeSolanaBurner();
 * const burner_signature = await signSolanaSession({
 *   burner: burner.keypair,
 *   destination: { address: "<base58 wallet>", chainId: 792703810 },
 * });
 */
export async function signSolanaSession(
  params: SignSolanaSessionParameters,
): Promise<SignSolanaSessionReturnType> {
  return signWithBurner(params.burner, solanaSessionMessage(params), "its session's creation");
}
