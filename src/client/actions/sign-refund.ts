import { type Address, bytesToHex, type Hex, type LocalAccount } from "viem";
import { refundTypedData } from "../../chains/evm/typed-data/eip712.ts";
import { ClientError, walletCall } from "../errors.ts";
import type { RefundBody } from "../types.ts";

/** A signed Refund stays valid this long by default: the backend submits it at once. */
export const DEFAULT_REFUND_TTL_S = 3600;

export interface SignRefundParameters {
  /** The burner's account: a Refund moves the burner's own balance. */
  signer: Pick<LocalAccount, "address" | "signTypedData">;
  /** The chain the balance sits on (the domain binds it: a Refund is valid on that chain only). */
  chainId: number;
  /** The ERC-20 to move (the zero address for native ETH). */
  token: Address;
  /** The recipient, pinned by the signature: the operator cannot change it. */
  to: Address;
  /** Base units, at most the burner's balance of `token`. */
  amount: bigint;
  /** Unix seconds. Default now + 3600. */
  deadline?: number | undefined;
  /** 32 bytes, unique per Refund (the delegate refuses a replayed salt). Default random. */
  salt?: Hex | undefined;
  now?: number | undefined;
}

/** The body of `POST /sessions/:id/refund`, signature included. */
export type SignRefundReturnType = RefundBody;
export type SignRefundErrorType = ClientError<"config_error" | "wallet_rejected" | "wallet_error">;

/**
 * Signs an EIP-712 Refund (token, to, amount, deadline, salt) with the burner's key, for one chain,
 * ready for `refund`.
 *
 * @example
 * import { refund, signRefund } from "deposit-settlement/client";
 * const body = await signRefund({ signer: burner.account, chainId: 31337, token: usdc, to: payer, amount: 25_000_000n });
 * const { tx_hash } = await refund(client, { id, refund: body });
 */
export async function signRefund(params: SignRefundParameters): Promise<SignRefundReturnType> {
  if (params.amount <= 0n)
    throw new ClientError("config_error", `refund amount ${params.amount} is not positive`);
  const deadline = params.deadline ?? Math.floor((params.now ?? Date.now()) / 1000) + DEFAULT_REFUND_TTL_S;
  const salt = params.salt ?? bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
  const typed = refundTypedData(params.chainId, params.signer.address, {
    token: params.token,
    to: params.to,
    amount: params.amount,
    deadline: BigInt(deadline),
    salt,
  });
  const signature = await walletCall("the Refund", () => params.signer.signTypedData(typed));
  return {
    token: params.token,
    to: params.to,
    amount: params.amount.toString(),
    deadline,
    salt,
    signature,
    chain_id: params.chainId,
  };
}
