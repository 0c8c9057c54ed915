import { z } from "zod";
import type { ProviderCache } from "./cache.ts";
import { providerJson } from "./http.ts";
import type { SwapQuote, SwapQuoteRequest, SwapRouter } from "./types.ts";

/**
 * The 0x Swap API v2 as the swap router: `GET {apiUrl}/swap/allowance-holder/quote` with the
 * `0x-api-key` and `0x-version: v2` headers. 0x names a chain's coin by the 0xEeee… address.
 */
export interface ZeroExSettings {
  apiUrl: string;
  apiKey: string;
  /** The chains it is asked about (the configured EVM chains). */
  chainIds: readonly number[];
  timeoutMs: number;
  cache: ProviderCache;
}

export const ZEROEX_NATIVE = "0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee";

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/)
  .transform((v) => v.toLowerCase() as `0x${string}`);
const uint = z
  .string()
  .regex(/^[0-9]{1,78}$/)
  .transform((v) => BigInt(v));
const quoteAnswer = z.union([
  z.object({
    liquidityAvailable: z.literal(true),
    buyAmount: uint,
    minBuyAmount: uint,
    sellAmount: uint,
    allowanceTarget: address.nullable(),
    transaction: z.object({
      to: address,
      data: z.string().regex(/^0x[0-9a-fA-F]*$/),
      value: uint,
      gas: uint.nullable(),
      gasPrice: uint.nullable(),
    }),
    issues: z.object({
      allowance: z.object({ actual: uint, spender: address }).nullable(),
      balance: z.object({ token: address, actual: uint, expected: uint }).nullable(),
    }),
  }),
  z.object({ liquidityAvailable: z.literal(false) }),
]);

const toZeroEx = (token: string) => (token === "native" ? ZEROEX_NATIVE : token.toLowerCase());
const fromZeroEx = (token: string) =>
  token.toLowerCase() === ZEROEX_NATIVE ? "native" : token.toLowerCase();

export function createZeroEx(settings: ZeroExSettings): SwapRouter {
  async function quote(request: SwapQuoteRequest): Promise<SwapQuote | null> {
    const query = new URLSearchParams({
      chainId: String(request.chainId),
      sellToken: toZeroEx(request.sellToken),
      buyToken: toZeroEx(request.buyToken),
      sellAmount: request.sellAmount.toString(),
      taker: request.taker,
      slippageBps: String(request.slippageBps),
    });
    const answer = await providerJson(
      "0x",
      `${settings.apiUrl}/swap/allowance-holder/quote?${query}`,
      { headers: { "0x-api-key": settings.apiKey, "0x-version": "v2" }, timeoutMs: settings.timeoutMs },
      quoteAnswer,
    );
    if (!answer.liquidityAvailable) return null;
    const balance = answer.issues.balance;
    return {
      chainId: request.chainId,
      sellToken: request.sellToken,
      buyToken: request.buyToken,
      sellAmount: answer.sellAmount,
      buyAmount: answer.buyAmount,
      minBuyAmount: answer.minBuyAmount,
      allowanceTarget: answer.allowanceTarget,
      transaction: { ...answer.transaction, data: answer.transaction.data as `0x${string}` },
      issues: {
        allowance: answer.issues.allowance,
        balance: balance && { ...balance, token: fromZeroEx(balance.token) },
      },
    };
  }
  return {
    chainIds: settings.chainIds,
    // A quote is cached briefly too: a wallet UI asks again on every render.
    quote: (request) =>
      settings.cache.get(
        `0x:${request.chainId}:${request.sellToken}:${request.buyToken}:${request.sellAmount}:${request.taker}:${request.slippageBps}`,
        () => quote(request),
      ),
  };
}
