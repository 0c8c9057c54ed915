import { type Keypair, PublicKey } from "@solana/web3.js";
import { buildBounceSetup } from "../../chains/solana/bounce-setup.ts";
import { ClientError } from "../errors.ts";

export interface SignSolanaBounceSetupParameters {
  sessionId: string;
  /** The session's burner (makeSolanaBurner). */
  burner: Keypair;
  /** The payer's wallet (base58): the one address a bounce may send the burner's USDC to. */
  refundTo: string;
  /** The service's Solana relayer and USDC mint (base58), as the session's Solana chain names them. */
  relayer: string;
  mint: string;
  /**
   * A recent blockhash (`GET /solana/blockhash`). The service relays the setup once a deposit is
   * recorded, and only before the blockhash expires (~60 s): sign it once the deposit is detected.
   */
  blockhash: string;
}

/** The setup transaction signed by the burner, base64 wire form (the relayer adds its signature). */
export type SignSolanaBounceSetupReturnType = string;
export type SignSolanaBounceSetupErrorType = ClientError<"config_error">;

/**
 * Signs, with the burner's key, the transaction that lets the service bounce the burner's USDC to
 * `refundTo` and nowhere else it would accept: a memo naming the session and `refundTo` (the
 * refund-address statement), the relayer approved as the delegate of the burner's USDC account (which
 * the deposit opened) and made its close authority. The relayer pays the fee. docs/SOLANA.md, "The
 * bounce", says who can move the burner's money when.
 *
 * @example
 * import { signSolanaBounceSetup } from "deposit-settlement/client";
 * const setup = signSolanaBounceSetup({ sessionId, burner: burner.keypair, refundTo: wallet, relayer, mint, blockhash });
 */
export function signSolanaBounceSetup(
  params: SignSolanaBounceSetupParameters,
): SignSolanaBounceSetupReturnType {
  const key = (name: string, value: string) => {
    try {
      return new PublicKey(value);
    } catch {
      throw new ClientError("config_error", `${name} is not a Solana address: ${value}`);
    }
  };
  const refundTo = key("refundTo", params.refundTo);
  if (!PublicKey.isOnCurve(refundTo.toBytes()))
    throw new ClientError("config_error", "refundTo must be a wallet address (an ed25519 public key)");
  if (refundTo.equals(params.burner.publicKey))
    throw new ClientError("config_error", "refundTo must not be the burner itself");
  const tx = buildBounceSetup({
    sessionId: params.sessionId,
    burner: params.burner.publicKey,
    refundTo,
    relayer: key("relayer", params.relayer),
    mint: key("mint", params.mint),
    blockhash: params.blockhash,
  });
  tx.partialSign(params.burner);
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64");
}
