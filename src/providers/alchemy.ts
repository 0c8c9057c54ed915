import { z } from "zod";
import type { ProviderCache } from "./cache.ts";
import { providerJson } from "./http.ts";
import { type BalanceIndexer, ProviderUnavailableError, type TokenHolding } from "./types.ts";

/**
 * Alchemy as the EVM balance indexer, through its documented wire forms: the node's
 * `alchemy_getTokenBalances` and `alchemy_getTokenMetadata` (JSON-RPC at `{rpcUrl}/{key}`, one URL per
 * network), `eth_getBalance` for the coin, and the Prices API (`POST {apiUrl}/prices/v1/{key}/tokens/
 * by-address`, `GET .../tokens/by-symbol` for the coin). A wallet's holdings on a chain and each
 * token's metadata are cached (PROVIDER_CACHE_TTL_MS), so repeated asks cost Alchemy nothing.
 */
export interface AlchemySettings {
  /** The node URL with `{network}` where the network's name goes (the key is appended as a path segment). */
  rpcUrl: string;
  /** The Prices API's origin. */
  apiUrl: string;
  apiKey: string;
  /** Alchemy's network name of each chain id it is asked about (`eth-mainnet`, `base-mainnet`, ...). */
  networks: Readonly<Record<number, string>>;
  timeoutMs: number;
  cache: ProviderCache;
}

/** Tokens priced per Prices API request (its documented limit). */
const PRICES_PER_REQUEST = 25;
/** Pages of alchemy_getTokenBalances read for one wallet (100 tokens a page): spam wallets stop here. */
const MAX_BALANCE_PAGES = 3;

const hexQuantity = z.string().regex(/^0x[0-9a-fA-F]*$/);
const rpcAnswer = <T extends z.ZodType>(result: T) =>
  z.union([z.object({ result }), z.object({ error: z.object({ code: z.number(), message: z.string() }) })]);
const balancesResult = z.object({
  address: z.string(),
  tokenBalances: z.array(
    z.object({
      contractAddress: z.string(),
      tokenBalance: hexQuantity.nullable(),
      error: z.unknown().nullable().optional(),
    }),
  ),
  pageKey: z.string().nullish(),
});
const metadataResult = z.object({
  name: z.string().nullable(),
  symbol: z.string().nullable(),
  decimals: z.number().int().min(0).max(255).nullable(),
  logo: z.string().nullable(),
});
const priceEntry = z.object({
  prices: z.array(z.object({ currency: z.string(), value: z.string() })),
  error: z.unknown().nullable().optional(),
});
const pricesByAddress = z.object({
  data: z.array(priceEntry.extend({ network: z.string(), address: z.string() })),
});
const pricesBySymbol = z.object({ data: z.array(priceEntry.extend({ symbol: z.string() })) });

/** The coin of networks whose coin is not ETH; every other network's is ETH. */
const NATIVE_SYMBOLS: Record<string, string> = { "polygon-mainnet": "POL", "polygon-amoy": "POL" };

export function createAlchemy(settings: AlchemySettings): BalanceIndexer {
  const { apiKey, timeoutMs, cache } = settings;
  const chainIds = Object.keys(settings.networks).map(Number);

  function networkOf(chainId: number): string {
    const network = settings.networks[chainId];
    if (network === undefined) throw new Error(`no Alchemy network for chain ${chainId}`);
    return network;
  }

  async function rpc<T extends z.ZodType>(network: string, method: string, params: unknown[], result: T) {
    const url = `${settings.rpcUrl.replace("{network}", network)}/${apiKey}`;
    const body = { jsonrpc: "2.0", id: 1, method, params };
    const answer = await providerJson("Alchemy", url, { method: "POST", body, timeoutMs }, rpcAnswer(result));
    if ("error" in answer) {
      throw new ProviderUnavailableError(`Alchemy refused ${method}`, {
        cause: new Error(answer.error.message),
      });
    }
    return (answer as { result: unknown }).result as z.infer<T>;
  }

  async function tokenBalances(network: string, wallet: string): Promise<Map<string, bigint>> {
    const found = new Map<string, bigint>();
    let pageKey: string | undefined;
    for (let page = 0; page < MAX_BALANCE_PAGES; page++) {
      const options = pageKey ? [{ pageKey }] : [];
      const answer = await rpc(
        network,
        "alchemy_getTokenBalances",
        [wallet, "erc20", ...options],
        balancesResult,
      );
      for (const b of answer.tokenBalances) {
        const amount = b.error || !b.tokenBalance || b.tokenBalance === "0x" ? 0n : BigInt(b.tokenBalance);
        if (amount > 0n) found.set(b.contractAddress.toLowerCase(), amount);
      }
      if (!answer.pageKey) break;
      pageKey = answer.pageKey;
    }
    return found;
  }

  const metadata = (network: string, token: string) =>
    cache.get(`alchemy:meta:${network}:${token}`, () =>
      rpc(network, "alchemy_getTokenMetadata", [token], metadataResult),
    );

  async function tokenPrices(network: string, tokens: string[]): Promise<Map<string, number>> {
    const prices = new Map<string, number>();
    for (let i = 0; i < tokens.length; i += PRICES_PER_REQUEST) {
      const addresses = tokens.slice(i, i + PRICES_PER_REQUEST).map((address) => ({ network, address }));
      const url = `${settings.apiUrl}/prices/v1/${apiKey}/tokens/by-address`;
      const answer = await providerJson(
        "Alchemy",
        url,
        { method: "POST", body: { addresses }, timeoutMs },
        pricesByAddress,
      );
      for (const entry of answer.data) {
        const usd = usdOf(entry);
        if (usd !== null) prices.set(entry.address.toLowerCase(), usd);
      }
    }
    return prices;
  }

  async function nativePrice(symbol: string): Promise<number | null> {
    const url = `${settings.apiUrl}/prices/v1/${apiKey}/tokens/by-symbol?symbols=${encodeURIComponent(symbol)}`;
    const answer = await providerJson("Alchemy", url, { timeoutMs }, pricesBySymbol);
    const entry = answer.data.find((d) => d.symbol === symbol);
    return entry ? usdOf(entry) : null;
  }

  async function holdings(chainId: number, wallet: `0x${string}`): Promise<TokenHolding[]> {
    const network = networkOf(chainId);
    const nativeSymbol = NATIVE_SYMBOLS[network] ?? "ETH";
    const [balances, coin, coinPrice] = await Promise.all([
      tokenBalances(network, wallet),
      rpc(network, "eth_getBalance", [wallet, "latest"], hexQuantity).then((h) => BigInt(h)),
      nativePrice(nativeSymbol),
    ]);
    const tokens = [...balances.keys()];
    const [metas, prices] = await Promise.all([
      Promise.all(tokens.map((t) => metadata(network, t))),
      tokenPrices(network, tokens),
    ]);
    const found: TokenHolding[] = [];
    if (coin > 0n) {
      const name = nativeSymbol === "ETH" ? "Ether" : nativeSymbol;
      found.push({
        chainId,
        token: "native",
        symbol: nativeSymbol,
        name,
        decimals: 18,
        amount: coin,
        priceUsd: coinPrice,
        logo: null,
      });
    }
    tokens.forEach((token, i) => {
      const meta = metas[i];
      // A token without decimals cannot be shown as an amount: Alchemy leaves them null for non-standard contracts.
      if (!meta || meta.decimals === null) return;
      found.push({
        chainId,
        token,
        symbol: meta.symbol ?? "",
        name: meta.name ?? "",
        decimals: meta.decimals,
        amount: balances.get(token) ?? 0n,
        priceUsd: prices.get(token) ?? null,
        logo: meta.logo,
      });
    });
    return found;
  }

  return {
    chainIds,
    holdings: (chainId, wallet) =>
      cache.get(`alchemy:holdings:${chainId}:${wallet.toLowerCase()}`, () => holdings(chainId, wallet)),
  };
}

/** The USD price of a Prices API entry, or null when it has none (an `error`, no usd line, not a number). */
function usdOf(entry: z.infer<typeof priceEntry>): number | null {
  if (entry.error) return null;
  const usd = Number(entry.prices.find((p) => p.currency.toLowerCase() === "usd")?.value);
  return Number.isFinite(usd) && usd >= 0 ? usd : null;
}
