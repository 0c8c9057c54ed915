import { createKeyPairFromBytes, getBase58Decoder, signBytes } from "@solana/kit";
import type { Keypair } from "@solana/web3.js";
import { ClientError } from "../errors.ts";

export interface SignSolanaRegistrationParameters {
  /** The session the burner is registered on: the message names it, so the proof is good for no other. */
  sessionId: string;
  /** The session's burner (makeSolanaBurner). */
  burner: Keypair;
}

/** The burner's ed25519 signature of the registration message, base58. */
export type SignSolanaRegistrationReturnType = string;
/** `wallet_error` when the platform's WebCrypto cannot sign with Ed25519. */
export type SignSolanaRegistrationErrorType = ClientError<"wallet_error">;

/** What the burner signs (docs/SOLANA.md, `POST /sessions/:id/solana-burner`). */
export const solanaRegistrationMessage = (sessionId: string): Uint8Array =>
  new TextEncoder().encode(`deposit-settlement:solana-burner:${sessionId}`);

/**
 * Signs the registration message `deposit-settlement:solana-burner:<session id>` with the burner's
 * key: the service registers a burner only with this proof that the registrant holds its key. Signed
 * by @solana/kit (`signBytes`, the platform's WebCrypto Ed25519), so it runs in browsers and Node alike.
 *
 * @example
 * import { signSolanaRegistration } from "deposit-settlement/client";
 * const signature = await signSolanaRegistration({ sessionId: id, burner: burner.keypair });
 */
export async function signSolanaRegistration(
  params: SignSolanaRegistrationParameters,
): Promise<SignSolanaRegistrationReturnType> {
  return signWithBurner(params.burner, solanaRegistrationMessage(params.sessionId), "its registration");
}

/** The burner's ed25519 signature (base58) of `message`; `wallet_error` naming `what` when it cannot sign. */
export async function signWithBurner(burner: Keypair, message: Uint8Array, what: string): Promise<string> {
  try {
    // Not extractable: the WebCrypto copy of the key can sign and nothing more.
    const { privateKey } = await createKeyPairFromBytes(burner.secretKey, false);
    return getBase58Decoder().decode(await signBytes(privateKey, message));
  } catch (cause) {
    throw new ClientError("wallet_error", `the burner could not sign ${what} (Ed25519)`, { cause });
  }
}
