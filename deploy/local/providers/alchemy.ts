// Our local Alchemy: the node JSON-RPC (`POST /{network}/v2/{key}`: alchemy_getTokenBalances,
// alchemy_getTokenMetadata, and every standard method passed to the chain's anvil) and the Prices API
// (`POST /prices/v1/{key}/tokens/by-address`, `GET /prices/v1/{key}/tokens/by-symbol`), in Alchemy's wire
// forms, answered from the local chains (chain-state.ts). Network `local-<chainId>` is the anvil chain of
// that id. Balances are read for the tokens the stack deployed (USDC, DAI, WETH): a real indexer finds every
// token a wallet ever received; here the stack knows them all. By hand: `npx tsx deploy/local/providers/alchemy.ts`.
import { pathToFileURL } from "node:url";
import Fastify, { type FastifyInstance } from "fastify";
import { type Address, erc20Abi, isAddress, numberToHex } from "viem";
import type { LocalChain } from "../chains.ts";
import { type ChainState, chainStates, chainsFromEnv, tokenMetadata, usdPrice } from "./chain-state.ts";
import { serveLogos } from "./logos.ts";

export const localNetwork = (chainId: number) => `local-${chainId}`;

type RpcRequest = { jsonrpc?: string; id?: unknown; method?: unknown; params?: unknown };

export function alchemyServer(opts: { chains: readonly LocalChain[]; apiKey: string }): FastifyInstance {
  const states = chainStates(opts.chains);
  const byNetwork = new Map([...states.values()].map((s) => [localNetwork(s.chain.chainId), s]));
  const app = Fastify({ logger: false });
  const keyOk = (key: string) => key === opts.apiKey;

  app.post<{ Params: { network: string; key: string }; Body: RpcRequest }>(
    "/:network/v2/:key",
    async (req, reply) => {
      const { id = null, method, params } = req.body ?? {};
      const rpcError = (status: number, code: number, message: string) =>
        reply.code(status).send({ jsonrpc: "2.0", id, error: { code, message } });
      if (!keyOk(req.params.key)) return rpcError(401, -32600, "Must be authenticated!");
      const state = byNetwork.get(req.params.network);
      if (!state) return rpcError(400, -32600, `unknown network ${req.params.network}`);
      const args = Array.isArray(params) ? params : [];
      if (method === "alchemy_getTokenBalances") {
        const [owner, spec] = args as [unknown, unknown];
        if (typeof owner !== "string" || !isAddress(owner))
          return rpcError(400, -32602, "invalid owner address");
        const tokens = Array.isArray(spec) ? (spec as Address[]) : state.tokens;
        const tokenBalances = await Promise.all(tokens.map((t) => balanceEntry(state, owner, t)));
        return { jsonrpc: "2.0", id, result: { address: owner.toLowerCase(), tokenBalances, pageKey: null } };
      }
      if (method === "alchemy_getTokenMetadata") {
        const [token] = args as [unknown];
        if (typeof token !== "string" || !isAddress(token))
          return rpcError(400, -32602, "invalid contract address");
        const meta = await tokenMetadata(state, token);
        const logo = meta
          ? `${req.protocol}://${req.host}/logos/${encodeURIComponent(meta.symbol)}.svg`
          : null;
        return { jsonrpc: "2.0", id, result: { name: null, symbol: null, decimals: null, ...meta, logo } };
      }
      // Every standard method is the chain's own answer.
      const upstream = await fetch(state.chain.rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(req.body),
      });
      return reply
        .code(upstream.status)
        .type("application/json")
        .send(await upstream.text());
    },
  );

  app.post<{ Params: { key: string }; Body: { addresses?: { network?: string; address?: string }[] } }>(
    "/prices/v1/:key/tokens/by-address",
    async (req, reply) => {
      if (!keyOk(req.params.key)) return reply.code(401).send({ error: { message: "invalid api key" } });
      const addresses = req.body?.addresses;
      if (!Array.isArray(addresses) || addresses.length > 25)
        return reply.code(400).send({ error: { message: "addresses: 1 to 25 { network, address }" } });
      const data = await Promise.all(
        addresses.map(async ({ network = "", address = "" }) => {
          const state = byNetwork.get(network);
          const price = state && isAddress(address) ? await usdPrice(state, address) : null;
          return priceEntry({ network, address }, price);
        }),
      );
      return { data };
    },
  );

  app.get<{ Params: { key: string }; Querystring: { symbols?: string | string[] } }>(
    "/prices/v1/:key/tokens/by-symbol",
    async (req, reply) => {
      if (!keyOk(req.params.key)) return reply.code(401).send({ error: { message: "invalid api key" } });
      const symbols = [req.query.symbols ?? []].flat();
      // A symbol names a token whatever the chain: the first chain's pools price it (ETH as WETH).
      const first = [...states.values()][0];
      const data = await Promise.all(
        symbols.map(async (symbol) => {
          const token = first && symbolToken(first, symbol);
          return priceEntry({ symbol }, first && token ? await usdPrice(first, token) : null);
        }),
      );
      return { data };
    },
  );

  serveLogos(app, "#2775ca");
  return app;
}

async function balanceEntry(state: ChainState, owner: Address, token: Address) {
  try {
    const balance = await state.client.readContract({
      address: token,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [owner],
    });
    return {
      contractAddress: token.toLowerCase(),
      tokenBalance: numberToHex(balance, { size: 32 }),
      error: null,
    };
  } catch (err) {
    return {
      contractAddress: token.toLowerCase(),
      tokenBalance: null,
      error: String((err as Error).message),
    };
  }
}

function symbolToken(state: ChainState, symbol: string): Address | undefined {
  if (symbol === "ETH" || symbol === "WETH") return state.chain.dex?.weth;
  if (symbol === "USDC") return state.chain.usdc;
  if (symbol === "DAI") return state.chain.dex?.dai;
  return undefined;
}

function priceEntry<T extends object>(key: T, usd: number | null) {
  return usd === null
    ? { ...key, prices: [], error: { message: "Token price not found" } }
    : {
        ...key,
        prices: [{ currency: "usd", value: usd.toFixed(8), lastUpdatedAt: new Date().toISOString() }],
        error: null,
      };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = alchemyServer({ chains: chainsFromEnv(), apiKey: process.env.PROVIDER_API_KEY ?? "local" });
  const url = await app.listen({ host: "127.0.0.1", port: Number(process.env.PROVIDER_PORT ?? 0) });
  console.log(`alchemy listening on ${url}`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
