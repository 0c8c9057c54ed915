// What the local provider servers read from the local anvil chains: the tokens the stack deployed, their
// metadata from the contracts, balances, and USD prices from the local Uniswap V2 pools (USDC = 1). Every
// answer is read from the chain at the time of the request; nothing is made up or stored.
import { readFileSync } from "node:fs";
import { type Address, createPublicClient, erc20Abi, http, type PublicClient, zeroAddress } from "viem";
import { uniswapV2FactoryAbi, uniswapV2PairAbi } from "../../../src/chains/evm/uniswap-v2.ts";
import { type LocalChain, toViemChain } from "../chains.ts";

/** One local chain as the provider servers see it. */
export interface ChainState {
  chain: LocalChain;
  client: PublicClient;
  /** The ERC-20s the stack deployed on it (USDC and the DEX's tokens): what a balance lookup reads. */
  tokens: Address[];
}

/** The chains the servers answer for: PROVIDER_CHAINS (JSON) when set, else the stack file's. */
export function chainsFromEnv(): LocalChain[] {
  const text =
    process.env.PROVIDER_CHAINS ?? readFileSync(process.env.STACK_FILE ?? ".local/stack.json", "utf8");
  const parsed = JSON.parse(text) as LocalChain[] | { chains: LocalChain[] };
  return Array.isArray(parsed) ? parsed : parsed.chains;
}

export function chainStates(chains: readonly LocalChain[]): Map<number, ChainState> {
  return new Map(
    chains.map((chain) => [
      chain.chainId,
      {
        chain,
        client: createPublicClient({
          chain: toViemChain(chain),
          transport: http(chain.rpcUrl),
        }) as PublicClient,
        tokens: [chain.usdc, ...(chain.dex ? [chain.dex.dai, chain.dex.weth] : [])],
      },
    ]),
  );
}

export const sameAddress = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** name, symbol, decimals read from the contract; null when it is not an ERC-20 (a call reverts). */
export async function tokenMetadata(
  state: ChainState,
  token: Address,
): Promise<{ name: string; symbol: string; decimals: number } | null> {
  try {
    const [name, symbol, decimals] = await Promise.all(
      (["name", "symbol", "decimals"] as const).map((functionName) =>
        state.client.readContract({ address: token, abi: erc20Abi, functionName }),
      ),
    );
    return { name: String(name), symbol: String(symbol), decimals: Number(decimals) };
  } catch {
    return null;
  }
}

/** The pool the factory holds for two tokens, or null when it has none. */
export async function pairOf(state: ChainState, a: Address, b: Address): Promise<Address | null> {
  const dex = state.chain.dex;
  if (!dex) return null;
  const pair = await state.client.readContract({
    address: dex.factory,
    abi: uniswapV2FactoryAbi,
    functionName: "getPair",
    args: [a, b],
  });
  return pair === zeroAddress ? null : pair;
}

/**
 * USD for one whole token: 1 for USDC, else the spot price of its pool against USDC (USDC reserve per
 * token reserve, each in whole units). null when the token has no USDC pool or the pool is empty.
 */
export async function usdPrice(state: ChainState, token: Address): Promise<number | null> {
  const usdc = state.chain.usdc;
  if (sameAddress(token, usdc)) return 1;
  const pair = await pairOf(state, token, usdc);
  if (!pair) return null;
  const [[reserve0, reserve1], token0, meta] = await Promise.all([
    state.client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" }),
    state.client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0" }),
    tokenMetadata(state, token),
  ]);
  if (!meta) return null;
  const [tokenReserve, usdcReserve] = sameAddress(token0, token)
    ? [reserve0, reserve1]
    : [reserve1, reserve0];
  if (tokenReserve === 0n) return null;
  // USDC has 6 decimals (the stack's TestUSDC).
  return Number(usdcReserve) / 1e6 / (Number(tokenReserve) / 10 ** meta.decimals);
}
