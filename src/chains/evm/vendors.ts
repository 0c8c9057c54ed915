import { createAlchemy } from "../../providers/alchemy.ts";
import type { Providers, VendorSettings } from "../../providers/types.ts";
import { createZeroEx } from "../../providers/zeroex.ts";
import type { EvmChainConfig } from "./config.ts";

/**
 * The EVM chains' vendors (docs/PROVIDERS.md): Alchemy reads a 0x wallet's balances and 0x quotes
 * swaps, each asked about the configured EVM chains only (the routes answer for the chains the
 * service settles on). Every one of them is a chain a swap may be asked on, a router configured or not.
 */
export function evmVendors(
  chains: readonly EvmChainConfig[],
  { keys, common }: VendorSettings,
): Pick<Providers, "balances" | "swaps" | "swapChains"> {
  const chainIds = chains.map((c) => c.chainId);
  const { alchemy, zeroEx } = keys;
  return {
    balances:
      alchemy &&
      createAlchemy({
        ...alchemy,
        networks: Object.fromEntries(
          chainIds.flatMap((id) => {
            const network = alchemy.networks[String(id)];
            return network ? [[id, network]] : [];
          }),
        ),
        ...common,
      }),
    swaps: zeroEx && createZeroEx({ ...zeroEx, chainIds, ...common }),
    swapChains: chains.map((c) => ({ chainId: c.chainId, usdc: c.usdc })),
  };
}
