// EIP-712 definitions for what a burner signs for BurnerDelegate. Hashing and signing stay in viem
// (signTypedData / verifyTypedData / hashTypedData); these objects only describe the structs.
import type { Address, Hex, TypedData, TypedDataDomain } from "viem";

export const DOMAIN_NAME = "BurnerDelegate";
export const DOMAIN_VERSION = "2";

/** The domain is per burner and per chain: verifyingContract is the burner EOA itself (EIP-7702 delegation). */
export function domainFor(chainId: number | bigint, burner: Address) {
  return {
    name: DOMAIN_NAME,
    version: DOMAIN_VERSION,
    chainId: Number(chainId),
    verifyingContract: burner,
  } as const satisfies TypedDataDomain;
}

export const intentTypes = {
  Intent: [
    { name: "destChainId", type: "uint256" },
    { name: "destAddr", type: "address" },
    { name: "minOut", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "salt", type: "bytes32" },
    { name: "inToken", type: "address" },
    { name: "maxIn", type: "uint256" },
    { name: "appFeeBps", type: "uint16" },
    { name: "appFeeRecipient", type: "address" },
  ],
} as const satisfies TypedData;

export const refundTypes = {
  Refund: [
    { name: "token", type: "address" },
    { name: "to", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "salt", type: "bytes32" },
  ],
} as const satisfies TypedData;

export const standingRefundTypes = {
  StandingRefund: [
    { name: "to", type: "address" },
    { name: "deadline", type: "uint256" },
  ],
} as const satisfies TypedData;

/** Same field order as the Solidity struct, so it can be passed straight as the `intent` argument of sweep. */
export type IntentMessage = {
  destChainId: bigint;
  destAddr: Address;
  minOut: bigint;
  deadline: bigint;
  salt: Hex;
  inToken: Address;
  maxIn: bigint;
  appFeeBps: number;
  appFeeRecipient: Address;
};

export type RefundMessage = { token: Address; to: Address; amount: bigint; deadline: bigint; salt: Hex };

export type StandingRefundMessage = { to: Address; deadline: bigint };

// Full typed-data definitions, ready for signTypedData / verifyTypedData / hashTypedData.
export function intentTypedData(chainId: number | bigint, burner: Address, message: IntentMessage) {
  return { domain: domainFor(chainId, burner), types: intentTypes, primaryType: "Intent", message } as const;
}

export function refundTypedData(chainId: number | bigint, burner: Address, message: RefundMessage) {
  return { domain: domainFor(chainId, burner), types: refundTypes, primaryType: "Refund", message } as const;
}

export function standingRefundTypedData(
  chainId: number | bigint,
  burner: Address,
  message: StandingRefundMessage,
) {
  return {
    domain: domainFor(chainId, burner),
    types: standingRefundTypes,
    primaryType: "StandingRefund",
    message,
  } as const;
}
