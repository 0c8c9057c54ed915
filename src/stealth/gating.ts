/**
 * Stealth settlement is experimental (docs/STEALTH.md, "Gating"): off unless STEALTH_ENABLED turns it
 * on, and refused for a mainnet chain whatever the setting says, since a stealth address's funds are
 * reachable only by the recipient's keys and a mistake there cannot be bounced back.
 */

/**
 * The mainnet chain ids stealth is refused on: the EVM mainnets this service could be pointed at
 * (Ethereum, Optimism, BNB Chain, Gnosis, Polygon, zkSync Era, Base, Arbitrum One, Avalanche C-Chain,
 * Linea, Scroll) and Solana mainnet as this service numbers it (docs/SOLANA.md). The one list.
 */
export const MAINNET_CHAIN_IDS: ReadonlySet<number> = new Set([
  1, 10, 56, 100, 137, 324, 8453, 42161, 43114, 59144, 534352, 792703809,
]);

export type StealthRefusal =
  | { code: "stealth_disabled"; message: string }
  | { code: "stealth_mainnet"; message: string };

/**
 * Why a stealth route or a Flow D creation is refused for these chains, or null when it may go on.
 * `chainIds`: every chain the request could move money on or announce on.
 */
export function stealthRefusal(enabled: boolean, chainIds: Iterable<number>): StealthRefusal | null {
  if (!enabled)
    return {
      code: "stealth_disabled",
      message: "stealth settlement is experimental and turned off on this service (STEALTH_ENABLED)",
    };
  for (const id of chainIds) {
    if (MAINNET_CHAIN_IDS.has(id))
      return {
        code: "stealth_mainnet",
        message: `stealth settlement is refused on mainnet chains (chain ${id})`,
      };
  }
  return null;
}
