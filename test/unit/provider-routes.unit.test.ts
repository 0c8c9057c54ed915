import type { FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import type { Providers, SolanaAggregator, SwapRouter, TokenHolding } from "../../src/providers/types.ts";
import { CHAIN_ID, testGateway } from "../support/memory-gateway.ts";

// The provider routes pick a wallet's reader by how the wallet is spelled and hold a quote's taker to
// the chain's spelling (src/gateway/routes/provider-families.ts); the vendors here are in memory.

const SOLANA_CHAIN = 792703810;
const EVM_WALLET = `0x${"Ab".repeat(20)}`;
const SOLANA_WALLET = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin";
const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const USDC = `0x${"33".repeat(20)}`;

const holding = (chainId: number, token: string): TokenHolding => ({
  chainId,
  token,
  symbol: "USDC",
  name: "USD Coin",
  decimals: 6,
  amount: 5_000_000n,
  priceUsd: 1,
  logo: null,
});

/** Vendors that answer one holding of their own chain, and remember who asked. */
function vendors() {
  const asked: string[] = [];
  const balances = {
    chainIds: [CHAIN_ID],
    holdings: async (_chainId: number, wallet: string) => {
      asked.push(`alchemy ${wallet}`);
      return [holding(CHAIN_ID, `0x${"11".repeat(20)}`)];
    },
  };
  const swaps: SwapRouter = {
    chainIds: [CHAIN_ID],
    quote: async (request) => {
      asked.push(`0x ${request.taker} ${request.buyToken}`);
      return null;
    },
  };
  const solana: SolanaAggregator = {
    chainId: SOLANA_CHAIN,
    usdcMint: MINT,
    holdings: async (owner) => {
      asked.push(`jupiter ${owner}`);
      return [holding(SOLANA_CHAIN, MINT)];
    },
    quote: async () => null,
  };
  const providers: Providers = {
    balances,
    swaps,
    solana,
    swapChains: [{ chainId: CHAIN_ID, usdc: USDC }],
  };
  return { providers, asked };
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function gateway() {
  const v = vendors();
  app = (await testGateway({}, { deps: { providers: v.providers } })).app;
  return { app, asked: v.asked };
}

describe("the provider routes", () => {
  it("read a 0x wallet through the EVM vendor and a base58 one through the Solana vendor, each answer naming its ecosystem", async () => {
    const { app, asked } = await gateway();
    const evm = await app.inject({ url: `/balances?address=${EVM_WALLET}` });
    const solana = await app.inject({ url: `/balances?address=${SOLANA_WALLET}` });
    expect([evm.statusCode, evm.json().ecosystem, evm.json().address]).toEqual([
      200,
      "evm",
      EVM_WALLET.toLowerCase(),
    ]);
    expect([solana.statusCode, solana.json().ecosystem, solana.json().address]).toEqual([
      200,
      "solana",
      SOLANA_WALLET,
    ]);
    expect(asked).toEqual([`alchemy ${EVM_WALLET.toLowerCase()}`, `jupiter ${SOLANA_WALLET}`]);
  });

  it("refuse a taker spelled for another chain with 400 before any vendor is asked", async () => {
    const { app, asked } = await gateway();
    const quote = (body: object) => app.inject({ method: "POST", url: "/quote", payload: body });
    const onEvm = await quote({
      chain_id: CHAIN_ID,
      sell_token: "native",
      sell_amount: "1000",
      taker: SOLANA_WALLET,
    });
    expect([onEvm.statusCode, onEvm.json().error]).toEqual([
      400,
      "body.taker: on an EVM chain, a 0x address",
    ]);
    const onSolana = await quote({
      chain_id: SOLANA_CHAIN,
      sell_token: "So11111111111111111111111111111111111111112",
      sell_amount: "1000",
      taker: EVM_WALLET,
    });
    expect(onSolana.statusCode).toBe(400);
    expect(onSolana.json().error).toBe("body.taker: on Solana, a base58 public key");
    expect(asked).toEqual([]);
  });

  it("quote on a chain of the swap router with the taker in the chain's spelling, and refuse a chain no vendor quotes", async () => {
    const { app, asked } = await gateway();
    const quote = (body: object) => app.inject({ method: "POST", url: "/quote", payload: body });
    // The router is asked with the taker lower-cased, buying the chain's USDC; it has no route: 409.
    const noRoute = await quote({
      chain_id: CHAIN_ID,
      sell_token: "native",
      sell_amount: "1000",
      taker: EVM_WALLET,
    });
    expect([noRoute.statusCode, noRoute.json().error]).toEqual([
      409,
      `the swap router has no liquidity for this pair on chain ${CHAIN_ID}`,
    ]);
    expect(asked).toEqual([`0x ${EVM_WALLET.toLowerCase()} ${USDC}`]);
    const unknown = await quote({
      chain_id: 1,
      sell_token: "native",
      sell_amount: "1000",
      taker: EVM_WALLET,
    });
    expect([unknown.statusCode, unknown.json().error]).toEqual([
      400,
      "chain_id is not a configured EVM chain nor the Solana aggregator's chain",
    ]);
  });
});
