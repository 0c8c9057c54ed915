import { type ChainMoney, DEFAULT_MIN_DELIVERY } from "../../domain/value.ts";
import type { SolanaChainConfig } from "./config.ts";

/** The USDC mint's decimals on Solana. */
const USDC_DECIMALS = 6;

/**
 * A Solana chain's money facts (src/domain/value.ts): its USDC mint; no swap runs in a sweep here,
 * so only USDC leaves the chain, by the fast fill to the EVM chains (which needs the vault).
 */
export function solanaMoney(chain: SolanaChainConfig, evmChainIds: readonly number[]): ChainMoney {
  return {
    chainId: chain.chainId,
    settlementToken: chain.usdcMint,
    settlementDecimals: USDC_DECIMALS,
    swapsOnChain: false,
    reaches: chain.vault ? [...evmChainIds] : [],
    minDelivery: chain.minDelivery === undefined ? DEFAULT_MIN_DELIVERY : BigInt(chain.minDelivery),
  };
}
