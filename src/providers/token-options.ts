import type { BalanceIndexer, TokenHolding } from "./types.ts";

/** A Token option of the interface (docs/API.md): what a wallet can pay with, valued in USD. */
export interface TokenOption {
  chain_id: number;
  token: string;
  symbol: string;
  name: string;
  decimals: number;
  amount: string;
  price_usd: number;
  value_usd: number;
  logo: string | null;
}

/**
 * The holdings a payer can pay with, most valuable first: a holding with no price is left out (it
 * cannot be valued, so neither offered nor quoted), as is a zero balance. Ties keep a stable order
 * (chain id, then token) so two identical asks answer identical lists.
 */
export function tokenOptions(holdings: readonly TokenHolding[]): TokenOption[] {
  const options: TokenOption[] = [];
  for (const h of holdings) {
    if (h.priceUsd === null || h.amount <= 0n) continue;
    options.push({
      chain_id: h.chainId,
      token: h.token,
      symbol: h.symbol,
      name: h.name,
      decimals: h.decimals,
      amount: h.amount.toString(),
      price_usd: h.priceUsd,
      value_usd: valueUsd(h.amount, h.decimals, h.priceUsd),
      logo: h.logo,
    });
  }
  return options.sort(
    (a, b) =>
      b.value_usd - a.value_usd ||
      a.chain_id - b.chain_id ||
      (a.token < b.token ? -1 : a.token > b.token ? 1 : 0),
  );
}

/** amount / 10^decimals * price, rounded to a millionth of a dollar (float noise below it means nothing). */
export function valueUsd(amount: bigint, decimals: number, priceUsd: number): number {
  // Split the amount at the decimal point first: Number(amount) alone loses the units past 2^53.
  const scale = 10n ** BigInt(decimals);
  const whole = Number(amount / scale) + Number(amount % scale) / Number(scale);
  return Math.round(whole * priceUsd * 1e6) / 1e6;
}

/** A wallet's holdings on every chain the indexer answers for, asked side by side. */
export async function evmHoldings(indexer: BalanceIndexer, wallet: `0x${string}`): Promise<TokenHolding[]> {
  const perChain = await Promise.all(indexer.chainIds.map((chainId) => indexer.holdings(chainId, wallet)));
  return perChain.flat();
}
