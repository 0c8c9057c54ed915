import { type Address, bytesToHex, type Hex, type LocalAccount } from "viem";
import {
  receiveAuthorizationTypedData,
  withdrawTypedData,
} from "../../chains/evm/typed-data/stealth-withdraw.ts";
import { ClientError, walletCall } from "../errors.ts";
import type { StealthWithdrawBody } from "../types.ts";

/** A signed withdrawal stays valid this long by default: the service relays it at once. */
export const DEFAULT_STEALTH_WITHDRAW_TTL_S = 3600;

export interface SignStealthWithdrawalParameters {
  /** The stealth address's account, from the spending key the scanner derived (`privateKeyToAccount`). */
  signer: Pick<LocalAccount, "address" | "signTypedData">;
  chainId: number;
  /** The chain's USDC (EIP-3009; its domain is "USD Coin", version "2"). */
  usdc: Address;
  /** The chain's StealthRelay (`stealthRelay` of the chain in the stack file, or the operator's docs). */
  relay: Address;
  /** What to withdraw, in USDC base units: usually the stealth address's whole balance. */
  value: bigint;
  /** Where `value - fee` goes, pinned by the signature. */
  destination: Address;
  /** What the relayer is paid, in USDC base units, pinned by the signature. */
  fee: bigint;
  /**
   * The service's relayer on this chain (`address` of the chain in `GET /health`'s `checks.relayers`): paid the
   * fee, and the only sender the relay accepts, so a copy of the pending withdrawal earns nobody anything.
   */
  relayer: Address;
  /** Unix seconds; default now + 3600 (both the Withdraw's deadline and the authorization's valid_before). */
  deadline?: number | undefined;
  /** The authorization's 32-byte nonce; default random (EIP-3009 nonces are not a counter). */
  nonce?: Hex | undefined;
  now?: number | undefined;
}

export type SignStealthWithdrawalReturnType = StealthWithdrawBody;
export type SignStealthWithdrawalErrorType = ClientError<"config_error" | "wallet_rejected" | "wallet_error">;

/**
 * Signs a gasless withdrawal from a stealth address with its key: an EIP-3009 ReceiveWithAuthorization of
 * `value` to the relay, and a Withdraw naming `destination`, `fee`, `relayer` and that authorization's nonce,
 * so the two work only together, once, and only when that relayer sends them. The result is the body of
 * `withdrawStealth`.
 *
 * @example
 * import { signStealthWithdrawal, withdrawStealth } from "deposit-settlement/client";
 * const body = await signStealthWithdrawal({ signer: privateKeyToAccount(spendingKey), chainId: 31337, usdc, relay,
 *   value: 25_000_000n, destination: fresh, fee: 100_000n, relayer });
 * const { tx_hash, amount } = await withdrawStealth(client, { withdrawal: body });
 */
export async function signStealthWithdrawal(
  params: SignStealthWithdrawalParameters,
): Promise<SignStealthWithdrawalReturnType> {
  if (params.fee < 0n || params.value <= params.fee)
    throw new ClientError(
      "config_error",
      `fee ${params.fee} must be at least 0 and below value ${params.value}`,
    );
  const deadline =
    params.deadline ?? Math.floor((params.now ?? Date.now()) / 1000) + DEFAULT_STEALTH_WITHDRAW_TTL_S;
  const nonce = params.nonce ?? bytesToHex(crypto.getRandomValues(new Uint8Array(32)));
  const from = params.signer.address;
  const authorization = {
    from,
    to: params.relay,
    value: params.value,
    validAfter: 0n,
    validBefore: BigInt(deadline),
    nonce,
  };
  const authSignature = await walletCall("the USDC authorization", () =>
    params.signer.signTypedData(receiveAuthorizationTypedData(params.chainId, params.usdc, authorization)),
  );
  const withdrawSignature = await walletCall("the Withdraw", () =>
    params.signer.signTypedData(
      withdrawTypedData(params.chainId, params.relay, {
        destination: params.destination,
        fee: params.fee,
        relayer: params.relayer,
        authNonce: nonce,
        deadline: BigInt(deadline),
      }),
    ),
  );
  return {
    stealth_address: from,
    token: params.usdc,
    chain_id: params.chainId,
    destination: params.destination,
    fee: params.fee.toString(),
    relayer: params.relayer,
    deadline,
    authorization: {
      value: params.value.toString(),
      valid_after: 0,
      valid_before: deadline,
      nonce,
      signature: authSignature,
    },
    withdraw_signature: withdrawSignature,
  };
}
