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
  const gw = (await testGateway({}, { deps: { providers: v.providers } })).app;
  app = gw;
  /** POST /quote selling 1000 base units of `sellToken` on `chainId` for `taker`; the status and error. */
  const quote = async (chainId: number, sellToken: string, taker: string) => {
    const body = { chain_id: chainId, sell_token: sellToken, sell_amount: "1000", taker };
    const res = await gw.inject({ method: "POST", url: "/quote", payload: body });
    return [res.statusCode, res.json().error];
  };
  return { app: gw, asked: v.asked, quote };
}

const SOL = "So11111111111111111111111111111111111111112";

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
    const { asked, quote } = await gateway();
    expect(await quote(CHAIN_ID, "native", SOLANA_WALLET)).toEqual([
      400,
      "body.taker: on an EVM chain, a 0x address",
    ]);
    expect(await quote(SOLANA_CHAIN, SOL, EVM_WALLET)).toEqual([
      400,
      "body.taker: on Solana, a base58 public key",
    ]);
    expect(asked).toEqual([]);
  });

  it("quote on a chain of the swap router with the taker in the chain's spelling, and refuse a chain no vendor quotes", async () => {
    const { asked, quote } = await gateway();
    // The router is asked with the taker lower-cased, buying the chain's USDC; it has no route: 409.
    expect(await quote(CHAIN_ID, "native", EVM_WALLET)).toEqual([
      409,
      `the swap router has no liquidity for this pair on chain ${CHAIN_ID}`,
    ]);
    expect(asked).toEqual([`0x ${EVM_WALLET.toLowerCase()} ${USDC}`]);
    expect(await quote(1, "native", EVM_WALLET)).toEqual([
      400,
      "chain_id is not a configured EVM chain nor the Solana aggregator's chain",
    ]);
  });
});
