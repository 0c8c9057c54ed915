import type { Providers, VendorSettings } from "../providers/types.ts";
import { type ChainConfig, evmChainsOf, solanaChainOf } from "./config.ts";
import { evmVendors } from "./evm/vendors.ts";
import { solanaVendors } from "./solana/vendors.ts";

/**
 * The providers of the configured chains: each family wires the vendors that serve its chains
 * (src/chains/<family>/vendors.ts), so the gateway and its settings name no family.
 */
export function chainProviders(chains: readonly ChainConfig[], vendors: VendorSettings): Providers {
  return {
    ...evmVendors(evmChainsOf(chains), vendors),
    ...solanaVendors(solanaChainOf(chains), vendors),
  };
}
