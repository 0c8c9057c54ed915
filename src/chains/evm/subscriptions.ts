// EIP-712 definitions for what a payer signs for SubscriptionManager (a Mandate, and a Cancel for the gasless
// cancel), and the subscription id derived from a mandate's digest. Hashing, signing and recovery stay in viem.
import { type Address, type Hex, hashTypedData, type TypedData, type TypedDataDomain } from "viem";

export const SUBSCRIPTION_DOMAIN_NAME = "SubscriptionManager";
export const SUBSCRIPTION_DOMAIN_VERSION = "1";

/** Unlike the burner's, this domain names the deployed manager: one signature is valid for one manager. */
export function subscriptionDomain(chainId: number | bigint, manager: Address) {
  return {
    name: SUBSCRIPTION_DOMAIN_NAME,
    version: SUBSCRIPTION_DOMAIN_VERSION,
    chainId: Number(chainId),
    verifyingContract: manager,
  } as const satisfies TypedDataDomain;
}

export const mandateTypes = {
  Mandate: [
    { name: "payer", type: "address" },
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
    { name: "period", type: "uint256" },
    { name: "start", type: "uint256" },
    { name: "merchant", type: "address" },
    { name: "appFeeBps", type: "uint16" },
    { name: "appFeeRecipient", type: "address" },
    { name: "salt", type: "bytes32" },
  ],
} as const satisfies TypedData;

export const cancelTypes = {
  Cancel: [{ name: "mandate", type: "bytes32" }],
} as const satisfies TypedData;

/** Same field order as the Solidity struct, so it can be passed straight as the `m` argument of charge/cancel. */
export type MandateMessage = {
  payer: Address;
  token: Address;
  amount: bigint;
  /** seconds */
  period: bigint;
  /** unix seconds: period 0 starts here, period i at start + i * period */
  start: bigint;
  merchant: Address;
  appFeeBps: number;
  appFeeRecipient: Address;
  salt: Hex;
};

export function mandateTypedData(chainId: number | bigint, manager: Address, message: MandateMessage) {
  return {
    domain: subscriptionDomain(chainId, manager),
    types: mandateTypes,
    primaryType: "Mandate",
    message,
  } as const;
}

/** The Cancel the payer signs for the gasless path: it names the mandate by its digest. */
export function cancelTypedData(chainId: number | bigint, manager: Address, mandate: Hex) {
  return {
    domain: subscriptionDomain(chainId, manager),
    types: cancelTypes,
    primaryType: "Cancel",
    message: { mandate },
  } as const;
}

export function mandateDigest(chainId: number | bigint, manager: Address, message: MandateMessage): Hex {
  return hashTypedData(mandateTypedData(chainId, manager, message));
}

/**
 * The subscription id: the digest's first 16 bytes as an RFC 9562 version 8 ("custom") UUID. Deterministic,
 * so registering the same mandate twice lands on the same entity, which answers the second with 409.
 * 122 bits of a keccak digest keep distinct mandates apart.
 */
export function subscriptionIdFromDigest(digest: Hex): string {
  const hex = digest.slice(2, 34).toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`not a 32-byte digest: ${digest}`);
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  const v = `${hex.slice(0, 12)}8${hex.slice(13, 16)}${variant}${hex.slice(17)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20)}`;
}
