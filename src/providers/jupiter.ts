import { z } from "zod";
import type { ProviderCache } from "./cache.ts";
import { providerJson } from "./http.ts";
import type { SolanaAggregator, TokenHolding } from "./types.ts";

/**
 * Jupiter as the Solana aggregator, through its documented wire forms (header `x-api-key`): the
 * owner's holdings (`GET /ultra/v1/holdings/{owner}`), the metadata of the mints it holds
 * (`GET /tokens/v2/search?query=<mints>`), which is also the test of "a mint Jupiter knows", and their
 * USD prices (`GET /price/v3?ids=<mints>`, unpriced mints left out). Each answer is cached
 * (PROVIDER_CACHE_TTL_MS), so a burst of asks for one wallet costs Jupiter three requests.
 */
export interface JupiterSettings {
  /** The API's origin (https://api.jup.ag). */
  apiUrl: string;
  apiKey: string;
  /** The Solana chain it answers for (CHAINS' Solana entry). */
  chainId: number;
  timeoutMs: number;
  cache: ProviderCache;
}

/** SOL as Jupiter and the service spell it: the native mint. */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112";
/** Mints per search or price request (the Price API's documented limit; the search takes 100). */
const MINTS_PER_REQUEST = 50;
/** Distinct mints of one wallet looked at: a wallet sprayed with spam tokens costs a bounded number of calls. */
const MAX_MINTS = 200;

const baseUnits = z.string().regex(/^[0-9]{1,30}$/);
const holdingsShape = z.object({
  amount: baseUnits,
  tokens: z.record(z.string(), z.array(z.object({ amount: baseUnits, decimals: z.number().int() }))),
});
const searchShape = z.array(
  z.object({
    id: z.string(),
    name: z.string(),
    symbol: z.string(),
    decimals: z.number().int().min(0).max(255),
    icon: z.string().nullish(),
  }),
);
const pricesShape = z.record(z.string(), z.object({ usdPrice: z.number().finite().nonnegative() }));

export function createJupiter(settings: JupiterSettings): SolanaAggregator {
  const { apiKey, timeoutMs, cache } = settings;
  const base = settings.apiUrl.replace(/\/+$/, "");

  const get = <T extends z.ZodType>(pathAndQuery: string, shape: T) =>
    providerJson("Jupiter", `${base}${pathAndQuery}`, { headers: { "x-api-key": apiKey }, timeoutMs }, shape);

  /** What the owner holds per mint, base units (SOL's lamports and any wrapped SOL under the native mint). */
  async function balances(owner: string): Promise<Map<string, bigint>> {
    const answer = await cache.get(`jupiter:holdings:${owner}`, () =>
      get(`/ultra/v1/holdings/${encodeURIComponent(owner)}`, holdingsShape),
    );
    const held = new Map<string, bigint>();
    if (BigInt(answer.amount) > 0n) held.set(NATIVE_MINT, BigInt(answer.amount));
    for (const [mint, accounts] of Object.entries(answer.tokens)) {
      const sum = accounts.reduce((total, a) => total + BigInt(a.amount), 0n);
      if (sum > 0n) held.set(mint, (held.get(mint) ?? 0n) + sum);
    }
    return held;
  }

  /** Per chunk of mints: one cache entry each, so two wallets holding the same mints share them. */
  async function chunked<T>(mints: string[], load: (chunk: string[]) => Promise<T[]>): Promise<T[]> {
    const chunks: string[][] = [];
    for (let i = 0; i < mints.length; i += MINTS_PER_REQUEST)
      chunks.push(mints.slice(i, i + MINTS_PER_REQUEST));
    return (await Promise.all(chunks.map(load))).flat();
  }

  return {
    chainId: settings.chainId,
    async holdings(owner) {
      const held = await balances(owner);
      const mints = [...held.keys()].sort().slice(0, MAX_MINTS);
      if (mints.length === 0) return [];
      const [tokens, prices] = await Promise.all([
        chunked(mints, (chunk) => {
          const query = chunk.join(",");
          return cache.get(`jupiter:search:${query}`, () =>
            get(`/tokens/v2/search?query=${encodeURIComponent(query)}`, searchShape),
          );
        }),
        chunked(mints, async (chunk) => {
          const ids = chunk.join(",");
          const answer = await cache.get(`jupiter:price:${ids}`, () =>
            get(`/price/v3?ids=${encodeURIComponent(ids)}`, pricesShape),
          );
          return Object.entries(answer);
        }),
      ]);
      const priceOf = new Map(prices.map(([mint, p]) => [mint, p.usdPrice]));
      const holdings: TokenHolding[] = [];
      // Only mints the search knows (a search by mint answers nothing for a mint Jupiter never indexed),
      // each once: a search may list a mint twice.
      for (const token of new Map(tokens.map((t) => [t.id, t])).values()) {
        const amount = held.get(token.id);
        if (amount === undefined) continue;
        holdings.push({
          chainId: settings.chainId,
          token: token.id,
          symbol: token.symbol,
          name: token.name,
          decimals: token.decimals,
          amount,
          priceUsd: priceOf.get(token.id) ?? null,
          logo: token.icon ?? null,
        });
      }
      return holdings;
    },
  };
}
