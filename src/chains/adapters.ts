import type { ChainAdapter } from "./adapter.ts";
import { type ChainConfig, evmChainsOf } from "./config.ts";
import { createEvmAdapter } from "./evm/adapter.ts";
import { createSolanaAdapter } from "./solana/adapter.ts";

/** The adapter of each configured chain, by its family: the one place that knows every family. */
export function createChainAdapters(chains: readonly ChainConfig[]): ChainAdapter[] {
  const evmChainIds = evmChainsOf(chains).map((c) => c.chainId);
  return chains.map((chain) => {
    switch (chain.family) {
      case "evm":
        return createEvmAdapter(chain);
      case "solana":
        return createSolanaAdapter(chain, evmChainIds);
      default: {
        const never: never = chain;
        throw new Error(`no adapter for chain family ${(never as { family: string }).family}`);
      }
    }
  });
}
