import { privateKeyToAddress } from "viem/accounts";
import { type Hex, stealthPrivateKey } from "../../stealth/erc5564.ts";
import { ClientError } from "../errors.ts";

export interface DeriveStealthKeyParameters {
  /** The announcement's ephemeral public key (`scanStealthAnnouncements`, or `GET /sessions/:id/stealth`). */
  ephemeralPubkey: Hex;
  /** The recipient's viewing and spending private keys. */
  viewPrivateKey: Hex;
  spendPrivateKey: Hex;
}

/** The stealth address's private key and the address it controls. */
export interface DeriveStealthKeyReturnType {
  privateKey: Hex;
  address: Hex;
}
/** `config_error`: the ephemeral key is not a compressed secp256k1 point. */
export type DeriveStealthKeyErrorType = ClientError<"config_error">;

/**
 * The spending key of one stealth payment (ERC-5564 scheme 1, docs/STEALTH.md):
 * `p_spend + keccak256(p_view · R) mod n`. Whoever holds it moves the stealth address's balance, so
 * it stays with the recipient: a gasless withdrawal signs with it and sends only the signature.
 *
 * @example
 * import { deriveStealthKey } from "deposit-settlement/client";
 * const { privateKey, address } = deriveStealthKey({ ephemeralPubkey, viewPrivateKey, spendPrivateKey });
 */
export function deriveStealthKey(params: DeriveStealthKeyParameters): DeriveStealthKeyReturnType {
  let privateKey: Hex;
  try {
    privateKey = stealthPrivateKey(params.ephemeralPubkey, params);
  } catch (err) {
    throw new ClientError("config_error", (err as Error).message, { cause: err, retryable: false });
  }
  return { privateKey, address: privateKeyToAddress(privateKey).toLowerCase() as Hex };
}
