import type { ChainAdapter } from "./adapter.ts";
import type { ChainConfig } from "./config.ts";
import { createEvmAdapter } from "./evm/adapter.ts";

/** The adapter of each configured chain, by its family: the one place that knows every family. */
export function createChainAdapters(chains: readonly ChainConfig[]): ChainAdapter[] {
  return chains.map((chain) => {
    switch (chain.family) {
      case "evm":
        return createEvmAdapter(chain);
      default: {
        const never: never = chain.family;
        throw new Error(`no adapter for chain family ${String(never)}`);
      }
    }
  });
}
