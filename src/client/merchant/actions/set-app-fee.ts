import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { AppFee } from "../types.ts";

export interface SetAppFeeParameters {
  /** 0 to 9900 basis points (platform fee plus app fee may not pass 100%). */
  appFeeBps: number;
  /** Who receives the fee: a 0x address, not the zero address when the fee is above 0. */
  appFeeRecipient: string;
  /**
   * Who receives the fee when a session settles on Solana: a base58 public key. Absent: none (the PUT
   * sets the fee as a whole), and a Solana checkout with a fee above 0 is then refused.
   */
  appFeeRecipientSol?: string | null | undefined;
  signal?: AbortSignal | undefined;
}

export type SetAppFeeReturnType = AppFee;
/**
 * An `http` ApiError: 400 for bps out of range, a malformed address (0x, or base58 for the Solana
 * sink), or a fee to the zero address.
 */
export type SetAppFeeErrorType = ApiError;

/**
 * Sets the app fee the merchant's checkout sessions sign into their Intents (`PUT /v1/app_fee`).
 * Sessions created from now on take it; those already made keep theirs.
 *
 * @example
 * await setAppFee(client, { appFeeBps: 100, appFeeRecipient: platformWallet }); // 1%
 */
export async function setAppFee(
  client: MerchantClient,
  params: SetAppFeeParameters,
): Promise<SetAppFeeReturnType> {
  return client.request<AppFee>({
    method: "PUT",
    path: "/v1/app_fee",
    body: {
      app_fee_bps: params.appFeeBps,
      app_fee_recipient: params.appFeeRecipient,
      ...(params.appFeeRecipientSol === undefined
        ? {}
        : { app_fee_recipient_sol: params.appFeeRecipientSol }),
    },
    signal: params.signal,
  });
}
