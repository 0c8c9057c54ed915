import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { z } from "zod";
import {
  balancesQuerySchema,
  balancesResponseSchema,
  swapQuoteBodySchema,
  swapQuoteResponseSchema,
  tokenOptionsQuerySchema,
  tokenOptionsResponseSchema,
  type walletSchema,
} from "../../api/providers.ts";
import { sessionParamsSchema } from "../../api/sessions.ts";
import { errorSchema } from "../../api/wire.ts";
import { type TokenOption, tokenOptions } from "../../providers/token-options.ts";
import type { Providers } from "../../providers/types.ts";
import { gatewayError } from "../errors.ts";
import type { SessionReadPort } from "../ports.ts";
import { chainQuoters, walletReaders } from "./provider-families.ts";
import { type CheckoutAccess, guardCheckout } from "./settlement.ts";

export interface ProviderRoutesOptions {
  providers: Providers;
  sessions: SessionReadPort;
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

  const readers = walletReaders(providers);
  const quoters = chainQuoters(providers);

  /** What a wallet can pay with, from the provider that reads its ecosystem's wallets, and that ecosystem. */
  async function optionsOf(wallet: z.output<typeof walletSchema>) {
    const reader = readers[wallet.family];
    if (!reader.holdings) throw gatewayError("wallet_unsupported", reader.missing);
    const options: TokenOption[] = tokenOptions(await reader.holdings(wallet.address));
    return { ecosystem: reader.ecosystem, options };
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
      const { ecosystem, options } = await optionsOf(wallet);
      reply.header("cache-control", "no-store");
      return { wallet: wallet.address, ecosystem, options };
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
      const { ecosystem, options: balances } = await optionsOf(address);
      reply.header("cache-control", "no-store");
      return { address: address.address, ecosystem, balances };
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
      reply.header("cache-control", "no-store");
      const quoter = quoters.get(body.chain_id);
      if (!quoter)
        throw gatewayError(
          "chain_unsupported",
          "chain_id is not a configured EVM chain nor the Solana aggregator's chain",
        );
      return quoter.quote(body, body.slippage_bps ?? opts.slippageBps);
    },
  );
};
