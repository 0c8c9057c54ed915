import { createJupiter } from "../../providers/jupiter.ts";
import type { Providers, VendorSettings } from "../../providers/types.ts";
import type { SolanaChainConfig } from "./config.ts";

/**
 * The Solana chain's vendor (docs/PROVIDERS.md): Jupiter reads a base58 wallet's holdings and quotes
 * swaps, answering for the one Solana chain configured (docs/SOLANA.md: one CHAINS entry).
 */
export function solanaVendors(
  chain: SolanaChainConfig | undefined,
  { keys, common }: VendorSettings,
): Pick<Providers, "solana"> {
  const { jupiter } = keys;
  return {
    solana:
      jupiter &&
      chain &&
      createJupiter({ ...jupiter, chainId: chain.chainId, usdcMint: chain.usdcMint, ...common }),
  };
}
