import { NATIVE_TOKEN } from "../../domain/types.ts";
import { type ChainMoney, DEFAULT_MIN_DELIVERY } from "../../domain/value.ts";
import type { EvmChainConfig } from "./config.ts";
import { evmCosts } from "./cost.ts";

/** USDC has 6 decimals on every EVM chain the service settles on. */
const USDC_DECIMALS = 6;

/**
 * An EVM chain's money facts (src/domain/value.ts): its USDC, the delegate's DEX swap into it at the
 * payer's min_out, and the chains CCTP reaches from it (both ends need their CCTP contracts).
 */
export function evmMoney(chain: EvmChainConfig, evmChains: readonly EvmChainConfig[]): ChainMoney {
  return {
    chainId: chain.chainId,
    settlementToken: chain.usdc ?? null,
    settlementDecimals: USDC_DECIMALS,
    swapsOnChain: true,
    reaches: chain.cctp
      ? evmChains.filter((c) => c.chainId !== chain.chainId && c.cctp).map((c) => c.chainId)
      : [],
    // EVM refunds are judged on a gas-priced floor the gateway reads live (src/gateway/routes/refunds.ts).
    dustFloors: {},
    minDelivery: chain.minDelivery === undefined ? DEFAULT_MIN_DELIVERY : BigInt(chain.minDelivery),
    nativeToken: NATIVE_TOKEN,
    costs: evmCosts(chain),
  };
}
