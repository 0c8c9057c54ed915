import { isAddress as isSolanaAddress } from "@solana/kit";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { z } from "zod";
import type { EvmChainConfig } from "../../chains/config.ts";
import { evmHoldings, type TokenOption, tokenOptions } from "../../providers/token-options.ts";
import type {
  Providers,
  SolanaAggregator,
  SolanaQuote,
  SwapQuote,
  TokenHolding,
} from "../../providers/types.ts";
import { gatewayError } from "../errors.ts";
import type { SessionReadPort } from "../ports.ts";
import {
  balancesQuerySchema,
  balancesResponseSchema,
  type SwapQuoteBody,
  swapQuoteBodySchema,
  swapQuoteResponseSchema,
  tokenOptionsQuerySchema,
  tokenOptionsResponseSchema,
  type walletSchema,
} from "../provider-schemas.ts";
import { errorSchema, sessionParamsSchema } from "../schemas.ts";
import { type CheckoutAccess, guardCheckout } from "./settlement.ts";

export interface ProviderRoutesOptions {
  providers: Providers;
  sessions: SessionReadPort;
  /** The configured EVM chains: where a quote may be asked, and each one's USDC (the default buy token). */
  evmChains: readonly EvmChainConfig[];
  /** QUOTE_SLIPPAGE_BPS: a quote's slippage when the request names none. */
  slippageBps: number;
  checkout?: CheckoutAccess | undefined;
}

const errors = Object.fromEntries([400, 404, 409, 413, 415, 429, 500, 502, 503].map((s) => [s, errorSchema]));

/**
 * GET /sessions/:id/token-options, GET /balances and POST /quote: reads through the providers
 * (src/providers/), nothing written anywhere, so a provider that fails changes nothing (502). Every
 * provider answer is cached (PROVIDER_CACHE_TTL_MS) and every request is behind the per-IP limiter.
 */
export const providerRoutes: FastifyPluginAsyncZod<ProviderRoutesOptions> = async (app, opts) => {
  const { providers, sessions } = opts;

  /** What a wallet can pay with, from the provider of its family. */
  async function optionsOf(wallet: z.output<typeof walletSchema>): Promise<TokenOption[]> {
    let holdings: TokenHolding[];
    if (wallet.family === "evm") {
      if (!providers.balances)
        throw gatewayError("wallet_unsupported", "no EVM balance provider is configured");
      holdings = await evmHoldings(providers.balances, wallet.address as `0x${string}`);
    } else {
      if (!providers.solana) throw gatewayError("wallet_unsupported", "Solana wallets are not supported yet");
      holdings = await providers.solana.holdings(wallet.address);
    }
    return tokenOptions(holdings);
  }

  app.get(
    "/sessions/:id/token-options",
    {
      schema: {
        summary: "What the payer's wallet can pay with, most valuable first",
        params: sessionParamsSchema,
        querystring: tokenOptionsQuerySchema,
        response: { 200: tokenOptionsResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const record = await sessions.get(request.params.id, { cached: true });
      if (!record) throw gatewayError("session_not_found");
      await guardCheckout(request as FastifyRequest, record.session, opts.checkout);
      const { wallet } = request.query;
      const options = await optionsOf(wallet);
      reply.header("cache-control", "no-store");
      return { wallet: wallet.address, ecosystem: wallet.family, options };
    },
  );

  app.get(
    "/balances",
    {
      schema: {
        summary: "A wallet's payable balances, most valuable first (no session)",
        querystring: balancesQuerySchema,
        response: { 200: balancesResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { address } = request.query;
      const balances = await optionsOf(address);
      reply.header("cache-control", "no-store");
      return { address: address.address, ecosystem: address.family, balances };
    },
  );

  app.post(
    "/quote",
    {
      schema: {
        summary:
          "A swap quote for the connected wallet (the send flow): on EVM with the transaction it sends, on Solana the aggregator's price and route",
        body: swapQuoteBodySchema,
        response: { 200: swapQuoteResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const slippageBps = body.slippage_bps ?? opts.slippageBps;
      reply.header("cache-control", "no-store");
      if (providers.solana && body.chain_id === providers.solana.chainId)
        return solanaQuote(providers.solana, body, slippageBps);
      const chain = opts.evmChains.find((c) => c.chainId === body.chain_id);
      if (!chain)
        throw gatewayError(
          "chain_unsupported",
          "chain_id is not a configured EVM chain nor the Solana aggregator's chain",
        );
      if (!providers.swaps) throw gatewayError("wallet_unsupported", "no swap router is configured");
      const onEvm = (field: string, token: string) => {
        if (token !== "native" && !token.startsWith("0x"))
          throw gatewayError("invalid_request", `body.${field}: on an EVM chain, a 0x address or native`);
        return token;
      };
      const sellToken = onEvm("sell_token", body.sell_token);
      const buyToken = body.buy_token === undefined ? chain.usdc : onEvm("buy_token", body.buy_token);
      if (buyToken === undefined)
        throw gatewayError("invalid_request", "body.buy_token: required on a chain with no configured USDC");
      if (buyToken === sellToken)
        throw gatewayError("invalid_request", "body.buy_token: must differ from sell_token");
      if (body.taker.family !== "evm")
        throw gatewayError("invalid_request", "body.taker: on an EVM chain, a 0x address");
      const quote = await providers.swaps.quote({
        chainId: chain.chainId,
        sellToken,
        buyToken,
        sellAmount: body.sell_amount,
        taker: body.taker.address,
        slippageBps,
      });
      if (!quote)
        throw gatewayError(
          "no_swap_route",
          `the swap router has no liquidity for this pair on chain ${chain.chainId}`,
        );
      return quoteWire(quote, slippageBps);
    },
  );
};

/** POST /quote on the Solana chain: base58 mints, through the aggregator; no transaction. */
async function solanaQuote(
  aggregator: SolanaAggregator,
  body: SwapQuoteBody,
  slippageBps: number,
): Promise<z.input<typeof swapQuoteResponseSchema>> {
  const onSolana = (field: string, token: string) => {
    if (!isSolanaAddress(token))
      throw gatewayError("invalid_request", `body.${field}: on Solana, a base58 mint (SOL: the native mint)`);
    return token;
  };
  const sellMint = onSolana("sell_token", body.sell_token);
  const buyMint = body.buy_token === undefined ? aggregator.usdcMint : onSolana("buy_token", body.buy_token);
  if (buyMint === sellMint)
    throw gatewayError("invalid_request", "body.buy_token: must differ from sell_token");
  if (body.taker.family !== "solana")
    throw gatewayError("invalid_request", "body.taker: on Solana, a base58 public key");
  const quote = await aggregator.quote({ sellMint, buyMint, sellAmount: body.sell_amount, slippageBps });
  if (!quote)
    throw gatewayError(
      "no_swap_route",
      `the aggregator has no route for this pair on chain ${aggregator.chainId}`,
    );
  return solanaQuoteWire(quote);
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

function quoteWire(q: SwapQuote, slippageBps: number): z.input<typeof swapQuoteResponseSchema> {
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
