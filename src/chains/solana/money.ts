import { type ChainMoney, DEFAULT_MIN_DELIVERY } from "../../domain/value.ts";
import {
  DEFAULT_MIN_LAMPORTS,
  DEFAULT_MIN_USDC_SOLANA,
  SOL_TOKEN,
  type SolanaChainConfig,
} from "./config.ts";
import { solanaCosts } from "./cost.ts";

const defaultAccepted = (chain: SolanaChainConfig) => [
  { token: chain.usdcMint, minAmount: String(DEFAULT_MIN_USDC_SOLANA) },
  { token: "native" as const, minAmount: String(DEFAULT_MIN_LAMPORTS) },
];

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
    dustFloors: Object.fromEntries(
      (chain.acceptedTokens ?? defaultAccepted(chain)).map((t) => [
        t.token === "native" ? SOL_TOKEN : t.token,
        BigInt(t.minAmount),
      ]),
    ),
    minDelivery: chain.minDelivery === undefined ? DEFAULT_MIN_DELIVERY : BigInt(chain.minDelivery),
    nativeToken: SOL_TOKEN,
    costs: solanaCosts(chain),
  };
}
