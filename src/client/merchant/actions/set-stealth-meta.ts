import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { StealthMeta } from "../types.ts";

export interface SetStealthMetaParameters {
  /**
   * The ERC-5564 scheme-1 meta-address `st:eth:0x<spend><view>`: the recipient's spending and viewing
   * public keys, each a compressed secp256k1 point. Only public keys: the private halves stay with the
   * recipient, who scans and withdraws with them (the payer library's `scanStealthAnnouncements`).
   */
  metaAddress: string;
  /**
   * The Solana scheme's ed25519 spending and viewing public keys (base58), both or neither: with
   * them a Flow D session also derives a Solana stealth address (`solana-ed25519-1`, docs/STEALTH.md).
   */
  solSpendPubkey?: string | undefined;
  solViewPubkey?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type SetStealthMetaReturnType = StealthMeta;
/**
 * An `http` ApiError: 400 for a key that is not a point of its curve (or, on Solana, not in the
 * prime-order subgroup) or one Solana key without the other; 403 `stealth_disabled` or
 * `stealth_mainnet` on a service that offers no stealth.
 */
export type SetStealthMetaErrorType = ApiError;

/**
 * Registers the merchant's stealth meta-address (`PUT /v1/stealth-meta`), replacing the one before:
 * each Flow D session (`createPaymentSession` with `stealth: true`) created after it pays a fresh
 * address derived from these keys. Every key is checked by the service before it is stored.
 *
 * @example
 * await setStealthMeta(client, { metaAddress: "st:eth:0x02…03…" });
 */
export async function setStealthMeta(
  client: MerchantClient,
  params: SetStealthMetaParameters,
): Promise<SetStealthMetaReturnType> {
  const { solSpendPubkey, solViewPubkey } = params;
  return client.request<StealthMeta>({
    method: "PUT",
    path: "/v1/stealth-meta",
    body: {
      meta_address: params.metaAddress,
      ...(solSpendPubkey === undefined ? {} : { sol_spend_pubkey: solSpendPubkey }),
      ...(solViewPubkey === undefined ? {} : { sol_view_pubkey: solViewPubkey }),
    },
    signal: params.signal,
  });
}
