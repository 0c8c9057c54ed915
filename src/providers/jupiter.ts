import { z } from "zod";
import type { ProviderCache } from "./cache.ts";
import { providerJson, providerJsonOrNone } from "./http.ts";
import type { SolanaAggregator, SolanaQuote, SolanaQuoteRequest, TokenHolding } from "./types.ts";

/**
 * Jupiter as the Solana aggregator, through its documented wire forms (header `x-api-key`): the
 * owner's holdings (`GET /ultra/v1/holdings/{owner}`), the metadata of the mints it holds
 * (`GET /tokens/v2/search?query=<mints>`), which is also the test of "a mint Jupiter knows", and their
 * USD prices (`GET /price/v3?ids=<mints>`, unpriced mints left out), and exact-in swap quotes
 * (`GET /swap/v1/quote?inputMint&outputMint&amount&slippageBps`). Each answer is cached
 * (PROVIDER_CACHE_TTL_MS), so a burst of asks for one wallet costs Jupiter three requests.
 */
export interface JupiterSettings {
  /** The API's origin (https://api.jup.ag). */
  apiUrl: string;
  apiKey: string;
  /** The Solana chain it answers for (CHAINS' Solana entry). */
  chainId: number;
  /** That chain's USDC mint (CHAINS' Solana entry): what a quote buys when the request names nothing. */
  usdcMint: string;
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
const quoteShape = z.object({
  inputMint: z.string(),
  inAmount: baseUnits,
  outputMint: z.string(),
  outAmount: baseUnits,
  otherAmountThreshold: baseUnits,
  slippageBps: z.number().int(),
  priceImpactPct: z.string().regex(/^-?[0-9]+(\.[0-9]+)?$/),
  routePlan: z.array(
    z.object({
      swapInfo: z.object({ ammKey: z.string(), label: z.string().nullish() }),
      percent: z.number(),
    }),
  ),
  contextSlot: z.number().int().nullish(),
});
/** Jupiter's 400 error codes that mean "no route for this pair", not a failure (docs: swap API errors). */
const NO_ROUTE = new Set(["COULD_NOT_FIND_ANY_ROUTE", "TOKEN_NOT_TRADABLE"]);
const noRoute = (status: number, body: unknown) =>
  status === 400 && NO_ROUTE.has(String((body as { errorCode?: unknown } | null)?.errorCode));

/** Jupiter's quote answer as the service's SolanaQuote. */
export function solanaQuoteOf(chainId: number, answer: z.output<typeof quoteShape>): SolanaQuote {
  return {
    chainId,
    sellMint: answer.inputMint,
    buyMint: answer.outputMint,
    sellAmount: BigInt(answer.inAmount),
    buyAmount: BigInt(answer.outAmount),
    minBuyAmount: BigInt(answer.otherAmountThreshold),
    slippageBps: answer.slippageBps,
    priceImpactPct: answer.priceImpactPct,
    route: answer.routePlan.map((r) => ({
      ammKey: r.swapInfo.ammKey,
      label: r.swapInfo.label ?? "",
      percent: r.percent,
    })),
    contextSlot: answer.contextSlot ?? null,
  };
}

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

  async function quote(request: SolanaQuoteRequest): Promise<SolanaQuote | null> {
    const query = new URLSearchParams({
      inputMint: request.sellMint,
      outputMint: request.buyMint,
      amount: request.sellAmount.toString(),
      slippageBps: String(request.slippageBps),
      swapMode: "ExactIn",
    });
    // A wallet UI asks again on every render: the same request within the TTL costs Jupiter nothing.
    const answer = await cache.get(`jupiter:quote:${query}`, () =>
      providerJsonOrNone(
        "Jupiter",
        `${base}/swap/v1/quote?${query}`,
        { headers: { "x-api-key": apiKey }, timeoutMs },
        quoteShape,
        noRoute,
      ),
    );
    return answer && solanaQuoteOf(settings.chainId, answer);
  }

  return {
    chainId: settings.chainId,
    usdcMint: settings.usdcMint,
    quote,
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
