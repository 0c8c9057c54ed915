import type { z } from "zod";
import {
  evmSpelling,
  type SwapQuoteBody,
  solanaSpelling,
  type swapQuoteResponseSchema,
  type tokenOptionsResponseSchema,
} from "../../api/providers.ts";
import { evmHoldings } from "../../providers/token-options.ts";
import type { Providers, SolanaQuote, SwapChain, SwapQuote, TokenHolding } from "../../providers/types.ts";
import { gatewayError } from "../errors.ts";

/**
 * Each vendor's side of the provider routes, in one place: which vendor reads a wallet's holdings
 * (the one of the wallet's ecosystem, which the query's schema told by its spelling), and which quotes
 * a swap on a chain, with that chain's spelling of a token and of the taker. The routes
 * (./providers.ts) find a reader by the wallet's ecosystem and a quoter by the chain's id, and ask
 * nothing about either themselves.
 */
type Ecosystem = z.output<typeof tokenOptionsResponseSchema>["ecosystem"];
type QuoteWire = z.input<typeof swapQuoteResponseSchema>;

/**
 * How the wallets spelled one way are read: `holdings` is absent when no vendor is configured,
 * `missing` says so; `ecosystem` is what the answer names.
 */
export interface WalletReader {
  ecosystem: Ecosystem;
  holdings: ((address: string) => Promise<TokenHolding[]>) | undefined;
  missing: string;
}

export function walletReaders(providers: Providers): Readonly<Record<Ecosystem, WalletReader>> {
  const { balances, solana } = providers;
  return {
    evm: {
      ecosystem: "evm",
      holdings: balances && ((address) => evmHoldings(balances, address as `0x${string}`)),
      missing: "no EVM balance provider is configured",
    },
    solana: {
      ecosystem: "solana",
      holdings: solana && ((address) => solana.holdings(address)),
      missing: "Solana wallets are not supported yet",
    },
  };
}

/** POST /quote on one chain: the vendor's quote, on the wire (the taker spelled as the chain spells it). */
export interface ChainQuoter {
  quote(body: SwapQuoteBody, slippageBps: number): Promise<QuoteWire>;
}

/** The chains a quote may be asked on: the Solana aggregator's chain, and each chain of the swap router's. */
export function chainQuoters(providers: Providers): ReadonlyMap<number, ChainQuoter> {
  const quoters = new Map<number, ChainQuoter>(
    (providers.swapChains ?? []).map((c) => [c.chainId, evmQuoter(providers, c)]),
  );
  const { solana } = providers;
  if (solana) quoters.set(solana.chainId, solanaQuoter(solana));
  return quoters;
}

/** Both tokens of a quote, in the chain's spelling: `parse` answers null for what the chain cannot name. */
function quoteTokens(
  body: SwapQuoteBody,
  parse: (token: string) => string | null,
  rule: string,
  defaultBuy: string | undefined,
): { sell: string; buy: string } {
  const token = (field: string, raw: string) => {
    const parsed = parse(raw);
    if (parsed === null) throw gatewayError("invalid_request", `body.${field}: ${rule}`);
    return parsed;
  };
  const sell = token("sell_token", body.sell_token);
  const buy = body.buy_token === undefined ? defaultBuy : token("buy_token", body.buy_token);
  if (buy === undefined)
    throw gatewayError("invalid_request", "body.buy_token: required on a chain with no configured USDC");
  if (buy === sell) throw gatewayError("invalid_request", "body.buy_token: must differ from sell_token");
  return { sell, buy };
}

/** The taker in the chain's spelling; 400 when it is a wallet of another chain. */
function takerOf(body: SwapQuoteBody, spelling: (raw: string) => string | null, rule: string): string {
  const taker = spelling(body.taker.address);
  if (taker === null) throw gatewayError("invalid_request", `body.taker: ${rule}`);
  return taker;
}

/** A vendor's quote, or 409 `no_swap_route` when it found none for the pair. */
function routed<Q>(quote: Q | null, why: string): Q {
  if (!quote) throw gatewayError("no_swap_route", why);
  return quote;
}

/** An EVM chain's quote through the swap router: 0x addresses or `native`, with the transaction to send. */
function evmQuoter(providers: Providers, chain: SwapChain): ChainQuoter {
  return {
    async quote(body, slippageBps) {
      if (!providers.swaps) throw gatewayError("wallet_unsupported", "no swap router is configured");
      const tokens = quoteTokens(
        body,
        (t) => (t === "native" || t.startsWith("0x") ? t : null),
        "on an EVM chain, a 0x address or native",
        chain.usdc,
      );
      const taker = takerOf(body, evmSpelling, "on an EVM chain, a 0x address") as `0x${string}`;
      const quote = routed(
        await providers.swaps.quote({
          chainId: chain.chainId,
          sellToken: tokens.sell,
          buyToken: tokens.buy,
          sellAmount: body.sell_amount,
          taker,
          slippageBps,
        }),
        `the swap router has no liquidity for this pair on chain ${chain.chainId}`,
      );
      return evmQuoteWire(quote, slippageBps);
    },
  };
}

/** The Solana chain's quote through the aggregator: base58 mints, a price and route, no transaction. */
function solanaQuoter(aggregator: NonNullable<Providers["solana"]>): ChainQuoter {
  return {
    async quote(body, slippageBps) {
      const tokens = quoteTokens(
        body,
        solanaSpelling,
        "on Solana, a base58 mint (SOL: the native mint)",
        aggregator.usdcMint,
      );
      takerOf(body, solanaSpelling, "on Solana, a base58 public key");
      const ask = { sellMint: tokens.sell, buyMint: tokens.buy, sellAmount: body.sell_amount, slippageBps };
      const quote = routed(
        await aggregator.quote(ask),
        `the aggregator has no route for this pair on chain ${aggregator.chainId}`,
      );
      return solanaQuoteWire(quote);
    },
  };
}

/** The aggregator's quote on the wire: decimal strings, snake_case. */
export function solanaQuoteWire(q: SolanaQuote): z.input<typeof swapQuoteResponseSchema> {
  return {
    ecosystem: "solana",
    chain_id: q.chainId,
    sell_token: q.sellMint,
    buy_token: q.buyMint,
    sell_amount: q.sellAmount.toString(),
    buy_amount: q.buyAmount.toString(),
    min_buy_amount: q.minBuyAmount.toString(),
    slippage_bps: q.slippageBps,
    price_impact_pct: q.priceImpactPct,
    route: q.route.map((r) => ({ amm_key: r.ammKey, label: r.label, percent: r.percent })),
    context_slot: q.contextSlot,
  };
}

function evmQuoteWire(q: SwapQuote, slippageBps: number): z.input<typeof swapQuoteResponseSchema> {
  const { allowance, balance } = q.issues;
  return {
    ecosystem: "evm",
    chain_id: q.chainId,
    sell_token: q.sellToken,
    buy_token: q.buyToken,
    sell_amount: q.sellAmount.toString(),
    buy_amount: q.buyAmount.toString(),
    min_buy_amount: q.minBuyAmount.toString(),
    slippage_bps: slippageBps,
    allowance_target: q.allowanceTarget,
    transaction: {
      to: q.transaction.to,
      data: q.transaction.data,
      value: q.transaction.value.toString(),
      gas: q.transaction.gas?.toString() ?? null,
      gas_price: q.transaction.gasPrice?.toString() ?? null,
    },
    issues: {
      allowance: allowance && { actual: allowance.actual.toString(), spender: allowance.spender },
      balance: balance && {
        token: balance.token,
        actual: balance.actual.toString(),
        expected: balance.expected.toString(),
      },
    },
  };
}
