import type { ChainMoney } from "../domain/value.ts";
import { type ChainConfig, evmChainsOf } from "./config.ts";
import { evmMoney } from "./evm/money.ts";
import { solanaMoney } from "./solana/money.ts";

/**
 * Every configured chain's money facts, by its family: what the session core's one money policy
 * (src/domain/value.ts) decides with. Like src/chains/adapters.ts, the one place that knows every family.
 */
export function chainMoney(chains: readonly ChainConfig[]): ChainMoney[] {
  const evm = evmChainsOf(chains);
  return chains.map((chain) => {
    switch (chain.family) {
      case "evm":
        return evmMoney(chain, evm);
      case "solana":
        return solanaMoney(
          chain,
          evm.map((c) => c.chainId),
        );
      default: {
        const never: never = chain;
        throw new Error(`no money facts for chain family ${(never as { family: string }).family}`);
      }
    }
  });
}
