import { afterEach, describe, expect, it } from "vitest";
import { swapQuoteBodySchema, swapQuoteResponseSchema } from "../../src/api/providers.ts";
import { solanaQuoteWire } from "../../src/gateway/routes/provider-families.ts";
import { createProviderCache } from "../../src/providers/cache.ts";
import { createJupiter } from "../../src/providers/jupiter.ts";
import { ProviderUnavailableError } from "../../src/providers/types.ts";
import { type LocalServer, sendJson, serve } from "../support/local-http.ts";

// The Solana side of POST /quote: the Jupiter adapter against a real local HTTP server speaking
// Jupiter's quote wire form (its query, its answer mapped to the service's quote, "no route" as null,
// anything else a ProviderUnavailableError), the quote's wire form, and the body's per-family tokens.

const SOL = "So11111111111111111111111111111111111111112";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const POOL = "58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2";
const jupiterQuote = {
  inputMint: SOL,
  inAmount: "100000000",
  outputMint: USDC,
  outAmount: "14925373",
  otherAmountThreshold: "14850746",
  swapMode: "ExactIn",
  slippageBps: 50,
  platformFee: null,
  priceImpactPct: "0.00066445",
  routePlan: [
    {
      swapInfo: { ammKey: POOL, label: "Local constant-product pool", inputMint: SOL, outputMint: USDC },
      percent: 100,
    },
  ],
  contextSlot: 4242,
};

let server: LocalServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function jupiterAnswering(status: number, body: unknown) {
  server = await serve((_req, res) => sendJson(res, status, body));
  return createJupiter({
    apiUrl: server.url,
    apiKey: "k",
    chainId: 792703810,
    usdcMint: USDC,
    timeoutMs: 2000,
    cache: createProviderCache({ ttlMs: 60_000, max: 10 }),
  });
}
const ask = { sellMint: SOL, buyMint: USDC, sellAmount: 100_000_000n, slippageBps: 50 };

describe("the Jupiter adapter's quote", () => {
  it("asks GET /swap/v1/quote exact-in with the key, maps the answer, and caches it", async () => {
    const jupiter = await jupiterAnswering(200, jupiterQuote);
    const quote = await jupiter.quote(ask);
    expect(quote).toEqual({
      chainId: 792703810,
      sellMint: SOL,
      buyMint: USDC,
      sellAmount: 100_000_000n,
      buyAmount: 14_925_373n,
      minBuyAmount: 14_850_746n,
      slippageBps: 50,
      priceImpactPct: "0.00066445",
      route: [{ ammKey: POOL, label: "Local constant-product pool", percent: 100 }],
      contextSlot: 4242,
    });
    expect(await jupiter.quote(ask)).toEqual(quote);
    expect(server?.requests).toHaveLength(1);
    const url = new URL(server?.requests[0]?.url ?? "", "http://x");
    expect(url.pathname).toBe("/swap/v1/quote");
    expect(Object.fromEntries(url.searchParams)).toEqual({
      inputMint: SOL,
      outputMint: USDC,
      amount: "100000000",
      slippageBps: "50",
      swapMode: "ExactIn",
    });
    expect(server?.requests[0]?.headers["x-api-key"]).toBe("k");
  });

  it("answers null for Jupiter's 'no route' codes", async () => {
    for (const errorCode of ["COULD_NOT_FIND_ANY_ROUTE", "TOKEN_NOT_TRADABLE"]) {
      const jupiter = await jupiterAnswering(400, { error: "No routes found", errorCode });
      expect(await jupiter.quote(ask)).toBeNull();
      await server?.close();
      server = undefined;
    }
  });

  it("turns any other refusal, a 5xx or another shape into ProviderUnavailableError", async () => {
    const cases: [number, unknown][] = [
      [400, { error: "bad", errorCode: "INVALID_REQUEST" }],
      [401, { error: "Unauthorized" }],
      [500, { error: "down" }],
      [200, { ...jupiterQuote, outAmount: -1 }],
    ];
    for (const [status, body] of cases) {
      const jupiter = await jupiterAnswering(status, body);
      await expect(jupiter.quote(ask), JSON.stringify(body)).rejects.toBeInstanceOf(ProviderUnavailableError);
      await server?.close();
      server = undefined;
    }
  });
});

describe("the Solana quote on the wire", () => {
  it("is the service's quote in snake_case with decimal strings, valid against the response schema", async () => {
    const jupiter = await jupiterAnswering(200, jupiterQuote);
    const wire = solanaQuoteWire((await jupiter.quote(ask)) ?? expect.unreachable());
    expect(wire).toEqual({
      ecosystem: "solana",
      chain_id: 792703810,
      sell_token: SOL,
      buy_token: USDC,
      sell_amount: "100000000",
      buy_amount: "14925373",
      min_buy_amount: "14850746",
      slippage_bps: 50,
      price_impact_pct: "0.00066445",
      route: [{ amm_key: POOL, label: "Local constant-product pool", percent: 100 }],
      context_slot: 4242,
    });
    expect(swapQuoteResponseSchema.parse(wire)).toEqual(wire);
  });

  it("takes base58 mints and a base58 taker in the body, as well as the EVM forms", () => {
    const body = { chain_id: 792703810, sell_token: SOL, sell_amount: "1000", taker: POOL };
    expect(swapQuoteBodySchema.parse(body)).toEqual({
      ...body,
      sell_amount: 1000n,
      taker: { family: "solana", address: POOL },
    });
    const evm = {
      chain_id: 1,
      sell_token: `0x${"AB".repeat(20)}`,
      sell_amount: "1",
      taker: `0x${"CD".repeat(20)}`,
    };
    expect(swapQuoteBodySchema.parse(evm)).toMatchObject({ sell_token: `0x${"ab".repeat(20)}` });
    for (const sell_token of ["", "0x12", "not base58 0OIl", "x".repeat(65)])
      expect(swapQuoteBodySchema.safeParse({ ...body, sell_token }).success, sell_token).toBe(false);
  });
});
