import type { StealthMeta } from "../domain/merchant/types.ts";
import type { StealthDestination } from "../domain/types.ts";
import { SOLANA_STEALTH_SCHEME } from "../stealth/ed25519.ts";
import { ERC5564_SCHEME } from "../stealth/erc5564.ts";
import { deriveSolanaStealthDestination, deriveStealthDestinations } from "../stealth/flow-d.ts";
import { type ChainConfig, type ChainFamily, evmChainsOf, solanaChainOf } from "./config.ts";

/**
 * What a merchant checkout needs of the configured chains, answered here so the checkout asks no
 * chain its family: the chains a checkout created without one is paid on (those whose burner is an
 * EVM address, one address on all of them), the stealth scheme that receives on a chain, and a
 * Flow D session's fresh destinations (docs/STEALTH.md).
 */
export interface CheckoutChains {
  burnerChainIds: readonly number[];
  /** The scheme whose stealth address a payment to `chainId` goes to; undefined for a chain not configured. */
  stealthSchemeOf(chainId: number): string | undefined;
  /** One fresh destination per scheme the merchant has keys for and a configured chain can pay. */
  stealthDestinations(meta: StealthMeta): StealthDestination[];
}

/** The stealth scheme each family's chains receive in (src/stealth/). */
const STEALTH_SCHEME: Record<ChainFamily, string> = {
  evm: ERC5564_SCHEME,
  solana: SOLANA_STEALTH_SCHEME,
};

export function checkoutChainsOf(chains: readonly ChainConfig[]): CheckoutChains {
  // A Solana address is derived only where a Solana checkout can pay it.
  const solana = solanaChainOf(chains) ? deriveSolanaStealthDestination : undefined;
  return {
    burnerChainIds: evmChainsOf(chains).map((c) => c.chainId),
    stealthSchemeOf(chainId) {
      const family = chains.find((c) => c.chainId === chainId)?.family;
      return family && STEALTH_SCHEME[family];
    },
    stealthDestinations: (meta) => deriveStealthDestinations(meta, solana),
  };
}
