import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { SwapQuote, SwapQuoteBody } from "../types.ts";

export interface GetSwapQuoteParameters {
  /** An EVM chain of the service, or its Solana chain (then the tokens are base58 mints). */
  chainId: number;
  /** EVM: 0x ERC-20 address or `native`; Solana: a base58 mint (SOL: the native mint `So111…112`). */
  sellToken: string;
  /** As `sellToken`; the chain's USDC when left out. */
  buyToken?: string | undefined;
  /** Base units of `sellToken` (wei, lamports, the token's smallest unit). */
  sellAmount: bigint;
  /** The connected wallet (0x on EVM: it sends the transaction and receives what it buys; base58 on Solana). */
  taker: string;
  /** The service's QUOTE_SLIPPAGE_BPS when left out. */
  slippageBps?: number | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * `ecosystem: "evm"`: the amounts, `allowance_target` to approve first, and the `transaction` the
 * wallet sends as is; `ecosystem: "solana"`: the aggregator's amounts, price impact and route, no
 * transaction.
 */
export type GetSwapQuoteReturnType = SwapQuote;
/** 400 for a bad request or an unconfigured chain, 409 `no_swap_route`; 502 when the router failed (retried). */
export type GetSwapQuoteErrorType = ApiError;

/**
 * A swap quote for the connected wallet (`POST /quote`, the send flow): what selling `sellAmount`
 * buys and, on EVM, the transaction that does it. When `allowance_target` is set and
 * `issues.allowance` says the approval is short, the wallet approves `allowance_target` for
 * `sellAmount` first. On Solana the answer is Jupiter's quote (docs/API.md, "POST /quote").
 *
 * @example
 * import { createApiClient, getSwapQuote } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const quote = await getSwapQuote(client, { chainId: 31337, sellToken: "native", sellAmount: 10n ** 16n, taker });
 * // A quote with a transaction is sent as is; one without (Solana) is a price and route only.
 * if ("transaction" in quote)
 *   await wallet.sendTransaction({ to: quote.transaction.to, data: quote.transaction.data, value: BigInt(quote.transaction.value) });
 */
export async function getSwapQuote(
  client: ApiClient,
  params: GetSwapQuoteParameters,
): Promise<GetSwapQuoteReturnType> {
  const body: SwapQuoteBody = {
    chain_id: params.chainId,
    sell_token: params.sellToken,
    sell_amount: params.sellAmount.toString(),
    taker: params.taker,
    ...(params.buyToken !== undefined ? { buy_token: params.buyToken } : {}),
    ...(params.slippageBps !== undefined ? { slippage_bps: params.slippageBps } : {}),
  };
  return client.request<SwapQuote>({ method: "POST", path: "/quote", body, signal: params.signal });
}
