import type { Address, LocalAccount } from "viem";
import { standingRefundTypedData } from "../../chains/evm/typed-data/eip712.ts";
import { ClientError, walletCall } from "../errors.ts";
import type { StandingRefundWire } from "../types.ts";

/** Default deadline of a standing refund: until then only the service's keeper may run it, after it anyone. */
export const DEFAULT_STANDING_REFUND_TTL_S = 7 * 24 * 3600;

export interface SignStandingRefundParameters {
  /** The burner's account. */
  signer: Pick<LocalAccount, "address" | "signTypedData">;
  /** The one recipient of every refund-all of this burner. */
  to: Address;
  /** The source chains to sign for: one signature each (the domain binds the chain id). */
  chainIds: readonly number[];
  /** Unix seconds. Default now + 7 days. */
  deadline?: number | undefined;
  now?: number | undefined;
}

/** `{ to, deadline, signatures: { chainId: sig } }`: the `standing_refund` of `createSession`, or the body of `attachStandingRefund`. */
export type SignStandingRefundReturnType = StandingRefundWire;
export type SignStandingRefundErrorType = ClientError<"config_error" | "wallet_rejected" | "wallet_error">;

/**
 * Signs an EIP-712 StandingRefund(to, deadline) with the burner's key for each source chain: an
 * amount-free, reusable permission to move the burner's whole balance of any asset to `to`, which
 * the service runs when the session expires or fails (and `refundAll` on request).
 *
 * @example
 * import { signStandingRefund } from "deposit-settlement/client";
 * const standingRefund = await signStandingRefund({ signer: burner.account, to: payer, chainIds: [31337] });
 */
export async function signStandingRefund(
  params: SignStandingRefundParameters,
): Promise<SignStandingRefundReturnType> {
  if (params.chainIds.length === 0)
    throw new ClientError("config_error", "a standing refund needs a chain id");
  const deadline =
    params.deadline ?? Math.floor((params.now ?? Date.now()) / 1000) + DEFAULT_STANDING_REFUND_TTL_S;
  const signatures: Record<string, `0x${string}`> = {};
  for (const chainId of params.chainIds) {
    const typed = standingRefundTypedData(chainId, params.signer.address, {
      to: params.to,
      deadline: BigInt(deadline),
    });
    signatures[String(chainId)] = await walletCall("the StandingRefund", () =>
      params.signer.signTypedData(typed),
    );
  }
  return { to: params.to, deadline, signatures };
}
