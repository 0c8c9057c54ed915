// EIP-712 definitions of the gasless stealth withdrawal (docs/STEALTH.md, "Withdrawal on EVM"): the EIP-3009
// ReceiveWithAuthorization the stealth key gives the chain's USDC, and the Withdraw it gives StealthRelay. Hashing,
// signing and verifying stay in viem; these objects only describe the structs and domains.
import type { Address, Hex, TypedDataDomain } from "viem";

/** USDC's EIP-712 domain as Circle's FiatToken v2 has it (the local TestUSDC uses the same name and version). */
export function usdcDomain(chainId: number, usdc: Address) {
  return {
    name: "USD Coin",
    version: "2",
    chainId,
    verifyingContract: usdc,
  } as const satisfies TypedDataDomain;
}

export function stealthRelayDomain(chainId: number, relay: Address) {
  return {
    name: "StealthRelay",
    version: "1",
    chainId,
    verifyingContract: relay,
  } as const satisfies TypedDataDomain;
}

export const receiveWithAuthorizationTypes = {
  ReceiveWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

export const withdrawTypes = {
  Withdraw: [
    { name: "destination", type: "address" },
    { name: "fee", type: "uint256" },
    { name: "relayer", type: "address" },
    { name: "authNonce", type: "bytes32" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export interface ReceiveAuthorizationMessage {
  from: Address;
  /** Always the relay: only the payee may submit receiveWithAuthorization. */
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

export interface WithdrawMessage {
  destination: Address;
  fee: bigint;
  /** The service's relayer: paid the fee, and the only sender StealthRelay accepts for this withdrawal. */
  relayer: Address;
  authNonce: Hex;
  deadline: bigint;
}

/** The ReceiveWithAuthorization typed data for viem's signTypedData / verifyTypedData. */
export const receiveAuthorizationTypedData = (
  chainId: number,
  usdc: Address,
  message: ReceiveAuthorizationMessage,
) =>
  ({
    domain: usdcDomain(chainId, usdc),
    types: receiveWithAuthorizationTypes,
    primaryType: "ReceiveWithAuthorization",
    message,
  }) as const;

/** The Withdraw typed data for viem's signTypedData / verifyTypedData. */
export const withdrawTypedData = (chainId: number, relay: Address, message: WithdrawMessage) =>
  ({
    domain: stealthRelayDomain(chainId, relay),
    types: withdrawTypes,
    primaryType: "Withdraw",
    message,
  }) as const;
