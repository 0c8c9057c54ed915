import type { ApiClient } from "../api-client.ts";
import { ApiError, type ClientError } from "../errors.ts";
import type { SolanaSweepTerms } from "../types.ts";
import { getSolanaBlockhash } from "./get-solana-blockhash.ts";
import type { MakeSolanaBurnerReturnType } from "./make-solana-burner.ts";
import { registerSolanaBurner } from "./register-solana-burner.ts";
import { signSolanaBounceSetup } from "./sign-solana-bounce-setup.ts";

export interface AttachSolanaBounceSetupParameters {
  /** The Solana-origin session, its burner already registered. */
  id: string;
  /** The session's `sweep` terms (its chain, relayer `fee_payer` and USDC mint are what is used). */
  terms: Pick<SolanaSweepTerms, "chain_id" | "fee_payer" | "usdc_mint">;
  /** The session's burner (makeSolanaBurner). */
  burner: MakeSolanaBurnerReturnType;
  /** The payer's wallet (base58): the one address a bounce may return the burner's USDC to. */
  refundTo: string;
  signal?: AbortSignal | undefined;
}

/** true: this setup is attached now (replacing one not yet relayed); false: the session takes no more (one was relayed, or it moved on). */
export type AttachSolanaBounceSetupReturnType = boolean;
/** ApiError other than 409 (400 `invalid_bounce_setup`, 409 is answered `false`); ClientError `config_error` for a bad `refundTo`. */
export type AttachSolanaBounceSetupErrorType = ApiError | ClientError<"config_error" | "wallet_error">;

/**
 * Signs the burner's bounce setup on a blockhash read now (`getSolanaBlockhash`, `signSolanaBounceSetup`)
 * and attaches it to the session (`registerSolanaBurner` again, with the setup), in place of one it
 * holds and has not relayed. The service relays the one it holds once an accepted USDC deposit is
 * recorded, within the blockhash's life (~150 blocks), so call it when the deposit is known to be on
 * its way (once it is detected, or as soon as the payer's own transfer is confirmed), or keep one
 * fresh while the payer may pay (`keepSolanaBounceSetup`; a page that may be closed before detection,
 * docs/LINKS.md).
 *
 * @example
 * import { attachSolanaBounceSetup } from "deposit-settlement/client";
 * await attachSolanaBounceSetup(client, { id, terms: created.sweep, burner, refundTo: wallet });
 */
export async function attachSolanaBounceSetup(
  client: ApiClient,
  params: AttachSolanaBounceSetupParameters,
): Promise<AttachSolanaBounceSetupReturnType> {
  const { id, terms, burner, signal } = params;
  const bounceSetup = signSolanaBounceSetup({
    sessionId: id,
    burner: burner.keypair,
    refundTo: params.refundTo,
    relayer: terms.fee_payer,
    mint: terms.usdc_mint,
    blockhash: (await getSolanaBlockhash(client, { chainId: terms.chain_id, signal })).blockhash,
  });
  try {
    await registerSolanaBurner(client, { id, burner: burner.keypair, bounceSetup, signal });
    return true;
  } catch (err) {
    // 409: a setup this burner signed before (an earlier run, the payer's transfer, a refresh) was
    // relayed already, or the session moved past taking one; either way the sweep is what settles it.
    if (err instanceof ApiError && err.status === 409) return false;
    throw err;
  }
}
