// EIP-712 definitions for what a payer signs for SubscriptionManager (a Mandate, and a Cancel for the gasless
// cancel), and the subscription id derived from a mandate's digest. Hashing, signing and recovery stay in viem.
import {
  type Address,
  type Hex,
  hashTypedData,
  type TypedData,
  type TypedDataDomain,
  verifyTypedData,
} from "viem";
import type { GatewaySubscriptions, MandateTerms } from "../../adapter.ts";

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
export type MandateMessage = MandateTerms;

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

// The id is chain-neutral (a UUID from any 32-byte digest): it lives with the domain.
export { subscriptionIdFromDigest } from "../../../domain/subscription/id.ts";

/** The gateway's side of one chain's SubscriptionManager: viem hashes and verifies (the signer must recover). */
export function evmGatewaySubscriptions(chainId: number, manager: Address): GatewaySubscriptions {
  return {
    manager,
    mandateDigest: (mandate) => mandateDigest(chainId, manager, mandate),
    mandateSigned: (mandate, signature) =>
      verifyTypedData({
        ...mandateTypedData(chainId, manager, mandate),
        address: mandate.payer,
        signature: signature as Hex,
      }).catch(() => false),
    cancelSigned: (payer, signedManager, digest, signature) =>
      verifyTypedData({
        ...cancelTypedData(chainId, signedManager as Address, digest),
        address: payer as Address,
        signature: signature as Hex,
      }).catch(() => false),
  };
}
