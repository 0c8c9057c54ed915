// Our local 0x Swap API v2: `GET /swap/allowance-holder/quote` (headers `0x-api-key`, `0x-version: v2`) in
// 0x's wire form, quoted by the local chain's Uniswap V2 router (getAmountsOut over the direct pool, else
// through USDC) and answered with a router transaction that really executes when the taker sends it. The
// allowance target is the router (0x's is its AllowanceHolder); `issues` reports a missing approval or
// balance as 0x does. By hand: `npx tsx deploy/local/providers/zeroex.ts`.
import { randomUUID } from "node:crypto";
import { pathToFileURL } from "node:url";
import Fastify, { type FastifyInstance } from "fastify";
import { type Address, encodeFunctionData, erc20Abi, type Hex, isAddress, parseAbi } from "viem";
import type { LocalChain } from "../chains.ts";
import { type ChainState, chainStates, chainsFromEnv, pairOf, sameAddress } from "./chain-state.ts";

const NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";
/** A quote's transaction is good for this long (the router's deadline). */
const DEADLINE_S = 600n;
/** The gas 0x would report when the transaction cannot be simulated yet (no approval or balance). */
const UNSIMULATED_GAS = 300_000n;

const routerAbi = parseAbi([
  "function getAmountsOut(uint256 amountIn, address[] path) view returns (uint256[] amounts)",
  "function swapExactTokensForTokens(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
  "function swapExactETHForTokens(uint256 amountOutMin, address[] path, address to, uint256 deadline) payable returns (uint256[] amounts)",
  "function swapExactTokensForETH(uint256 amountIn, uint256 amountOutMin, address[] path, address to, uint256 deadline) returns (uint256[] amounts)",
]);

type Query = Partial<
  Record<"chainId" | "sellToken" | "buyToken" | "sellAmount" | "taker" | "slippageBps", string>
>;

export function zeroExServer(opts: { chains: readonly LocalChain[]; apiKey: string }): FastifyInstance {
  const states = chainStates(opts.chains);
  const app = Fastify({ logger: false });
  const invalid = (message: string) => ({ name: "INPUT_INVALID", message });

  app.get<{ Querystring: Query }>("/swap/allowance-holder/quote", async (req, reply) => {
    if (req.headers["0x-api-key"] !== opts.apiKey)
      return reply.code(401).send({ name: "UNAUTHORIZED", message: "invalid 0x-api-key" });
    if (req.headers["0x-version"] !== "v2")
      return reply.code(400).send(invalid("the 0x-version header must be v2"));
    const q = req.query;
    const state = states.get(Number(q.chainId));
    if (!state?.chain.dex) return reply.code(400).send(invalid(`chainId ${q.chainId} is not supported`));
    if (!q.sellToken || !isAddress(q.sellToken) || !q.buyToken || !isAddress(q.buyToken))
      return reply.code(400).send(invalid("sellToken and buyToken must be addresses"));
    if (!q.taker || !isAddress(q.taker)) return reply.code(400).send(invalid("taker must be an address"));
    if (!q.sellAmount || !/^[1-9][0-9]{0,77}$/.test(q.sellAmount))
      return reply.code(400).send(invalid("sellAmount must be a positive integer"));
    const slippageBps = BigInt(q.slippageBps ?? "100");
    if (slippageBps < 0n || slippageBps > 10_000n)
      return reply.code(400).send(invalid("slippageBps out of range"));
    const quote = await quoteOf(state, {
      sell: q.sellToken,
      buy: q.buyToken,
      sellAmount: BigInt(q.sellAmount),
      taker: q.taker,
      slippageBps,
    });
    return { ...quote, zid: `0x${randomUUID().replaceAll("-", "")}` };
  });
  return app;
}

async function quoteOf(
  state: ChainState,
  q: { sell: Address; buy: Address; sellAmount: bigint; taker: Address; slippageBps: bigint },
) {
  const dex = state.chain.dex;
  if (!dex) return { liquidityAvailable: false };
  const sellNative = sameAddress(q.sell, NATIVE);
  const buyNative = sameAddress(q.buy, NATIVE);
  const sell = sellNative ? dex.weth : q.sell;
  const buy = buyNative ? dex.weth : q.buy;
  const path = await pathOf(state, sell, buy);
  if (!path) return { liquidityAvailable: false };
  const amounts = await state.client
    .readContract({
      address: dex.router,
      abi: routerAbi,
      functionName: "getAmountsOut",
      args: [q.sellAmount, path],
    })
    .catch(() => null);
  const buyAmount = amounts?.at(-1);
  if (!buyAmount) return { liquidityAvailable: false };
  const minBuyAmount = (buyAmount * (10_000n - q.slippageBps)) / 10_000n;
  const block = await state.client.getBlock();
  const deadline = block.timestamp + DEADLINE_S;
  const data: Hex = sellNative
    ? encodeFunctionData({
        abi: routerAbi,
        functionName: "swapExactETHForTokens",
        args: [minBuyAmount, path, q.taker, deadline],
      })
    : encodeFunctionData({
        abi: routerAbi,
        functionName: buyNative ? "swapExactTokensForETH" : "swapExactTokensForTokens",
        args: [q.sellAmount, minBuyAmount, path, q.taker, deadline],
      });
  const value = sellNative ? q.sellAmount : 0n;
  const [balance, allowance, gasPrice] = await Promise.all([
    sellNative
      ? state.client.getBalance({ address: q.taker })
      : state.client.readContract({
          address: sell,
          abi: erc20Abi,
          functionName: "balanceOf",
          args: [q.taker],
        }),
    sellNative
      ? null
      : state.client.readContract({
          address: sell,
          abi: erc20Abi,
          functionName: "allowance",
          args: [q.taker, dex.router],
        }),
    state.client.getGasPrice(),
  ]);
  const issues = {
    allowance:
      allowance !== null && allowance < q.sellAmount
        ? { actual: String(allowance), spender: dex.router }
        : null,
    balance:
      balance < q.sellAmount
        ? { token: q.sell.toLowerCase(), actual: String(balance), expected: String(q.sellAmount) }
        : null,
    simulationIncomplete: false,
    invalidSourcesPassed: [],
  };
  // Simulated when it can succeed now; otherwise 0x's answer still carries a gas figure.
  const gas =
    issues.allowance || issues.balance
      ? UNSIMULATED_GAS
      : await state.client
          .estimateGas({ account: q.taker, to: dex.router, data, value })
          .catch(() => UNSIMULATED_GAS);
  return {
    liquidityAvailable: true,
    blockNumber: String(block.number),
    buyAmount: String(buyAmount),
    buyToken: q.buy.toLowerCase(),
    sellAmount: String(q.sellAmount),
    sellToken: q.sell.toLowerCase(),
    minBuyAmount: String(minBuyAmount),
    allowanceTarget: sellNative ? null : dex.router.toLowerCase(),
    transaction: {
      to: dex.router.toLowerCase(),
      data,
      gas: String(gas),
      gasPrice: String(gasPrice),
      value: String(value),
    },
    issues,
    fees: { integratorFee: null, zeroExFee: null, gasFee: null },
    route: {
      fills: path
        .slice(1)
        .map((to, i) => ({ from: path[i], to, source: "Uniswap_V2", proportionBps: "10000" })),
      tokens: path.map((address) => ({ address })),
    },
    totalNetworkFee: String(gas * gasPrice),
  };
}

/** The direct pool, else a hop through USDC; null when neither exists. */
async function pathOf(state: ChainState, sell: Address, buy: Address): Promise<Address[] | null> {
  if (sameAddress(sell, buy)) return null;
  if (await pairOf(state, sell, buy)) return [sell, buy];
  const usdc = state.chain.usdc;
  if (sameAddress(sell, usdc) || sameAddress(buy, usdc)) return null;
  const [a, b] = await Promise.all([pairOf(state, sell, usdc), pairOf(state, usdc, buy)]);
  return a && b ? [sell, usdc, buy] : null;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const app = zeroExServer({ chains: chainsFromEnv(), apiKey: process.env.PROVIDER_API_KEY ?? "local" });
  const url = await app.listen({ host: "127.0.0.1", port: Number(process.env.PROVIDER_PORT ?? 0) });
  console.log(`0x listening on ${url}`);
  const stop = () => void app.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
