import { describe, expect, it } from "vitest";
import { amountDue, HEADROOM_BPS } from "../../src/gateway/pay-amounts.ts";

// A Uniswap V2 pool's getAmountsOut (0.3% fee), the route the sweep swaps a token to USDC through.
const pool = (reserveIn: bigint, reserveOut: bigint) => async (amountIn: bigint) => {
  const withFee = amountIn * 997n;
  return (withFee * reserveOut) / (reserveIn * 1000n + withFee);
};
const DAI = 10n ** 18n;
const USDC = 10n ** 6n;

describe("the amount of a token that pays a USDC amount", () => {
  it("DAI at par: the swap of the answer gives the amount plus the headroom, within a few units", async () => {
    const quote = pool(1_000_000n * DAI, 1_000_000n * USDC);
    const due = await amountDue(quote, 10n * USDC, DAI);
    const out = (await quote(due as bigint)) ?? 0n;
    const aim = 10n * USDC + (10n * USDC * HEADROOM_BPS) / 10_000n;
    expect(out).toBeGreaterThanOrEqual(aim);
    expect(out - aim).toBeLessThanOrEqual(1n);
    // A little more than 10 DAI: the pool's fee and the headroom.
    expect(due).toBeGreaterThan(10n * DAI);
    expect(due).toBeLessThan(10n * DAI + DAI / 20n);
  });

  it("a thin pool with a steep price impact is still met", async () => {
    const quote = pool(20n * DAI, 40n * USDC);
    const due = (await amountDue(quote, 10n * USDC, DAI)) as bigint;
    expect(await quote(due)).toBeGreaterThanOrEqual(10n * USDC);
  });

  it("ether priced in thousands of USDC: a small fraction of a coin", async () => {
    const quote = pool(1_000n * DAI, 3_000_000n * USDC);
    const due = (await amountDue(quote, 10n * USDC, DAI)) as bigint;
    expect(await quote(due)).toBeGreaterThanOrEqual(10n * USDC);
    expect(due).toBeLessThan(DAI / 100n);
  });

  it("no price: no amount", async () => {
    expect(await amountDue(async () => null, 10n * USDC, DAI)).toBeNull();
    expect(await amountDue(async () => 0n, 10n * USDC, DAI)).toBeNull();
  });

  it("a pool too thin to give the amount at all: no amount", async () => {
    expect(await amountDue(pool(1n * DAI, 5n * USDC), 10n * USDC, DAI)).toBeNull();
  });
});
