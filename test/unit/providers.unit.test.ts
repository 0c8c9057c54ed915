import { describe, expect, it } from "vitest";
import { tokenOptionsQuerySchema } from "../../src/api/providers.ts";
import { createProviderCache } from "../../src/providers/cache.ts";
import { tokenOptions, valueUsd } from "../../src/providers/token-options.ts";
import type { TokenHolding } from "../../src/providers/types.ts";

const holding = (over: Partial<TokenHolding>): TokenHolding => ({
  chainId: 1,
  token: "0x0000000000000000000000000000000000000001",
  symbol: "T",
  name: "Token",
  decimals: 6,
  amount: 1_000_000n,
  priceUsd: 1,
  logo: null,
  ...over,
});

describe("tokenOptions", () => {
  it("sorts by value_usd, most valuable first, whatever the amounts and decimals", () => {
    const options = tokenOptions([
      holding({ token: "a", amount: 5_000_000n, priceUsd: 1 }), // $5
      holding({ token: "native", decimals: 18, amount: 10n ** 16n, priceUsd: 3000 }), // $30
      holding({ token: "b", chainId: 2, decimals: 18, amount: 12n * 10n ** 18n, priceUsd: 0.5 }), // $6
    ]);
    expect(options.map((o) => [o.token, o.value_usd])).toEqual([
      ["native", 30],
      ["b", 6],
      ["a", 5],
    ]);
    expect(options[0]).toEqual({
      chain_id: 1,
      token: "native",
      symbol: "T",
      name: "Token",
      decimals: 18,
      amount: "10000000000000000",
      price_usd: 3000,
      value_usd: 30,
      logo: null,
    });
  });

  it("leaves out what has no price or no balance, and orders equal values by chain then token", () => {
    const options = tokenOptions([
      holding({ token: "unpriced", priceUsd: null }),
      holding({ token: "empty", amount: 0n }),
      holding({ token: "z", chainId: 2 }),
      holding({ token: "y", chainId: 1 }),
      holding({ token: "x", chainId: 2 }),
    ]);
    expect(options.map((o) => `${o.chain_id}:${o.token}`)).toEqual(["1:y", "2:x", "2:z"]);
  });

  it("values amounts past 2^53 base units without losing the whole units", () => {
    expect(valueUsd(123_456_789n * 10n ** 18n + 5n * 10n ** 17n, 18, 2)).toBe(246_913_579);
    expect(valueUsd(1n, 6, 1)).toBe(0.000001);
  });
});

describe("the provider cache", () => {
  it("asks the provider once for concurrent and repeated asks within the TTL, again after it", async () => {
    let now = 0;
    let calls = 0;
    const cache = createProviderCache({ ttlMs: 1000, max: 10, now: () => now });
    const load = async () => ++calls;
    expect(await Promise.all([cache.get("k", load), cache.get("k", load)])).toEqual([1, 1]);
    now = 999;
    expect(await cache.get("k", load)).toBe(1);
    now = 1000;
    expect(await cache.get("k", load)).toBe(2);
  });

  it("keeps no failure: the next ask calls the provider again", async () => {
    const cache = createProviderCache({ ttlMs: 60_000, max: 10 });
    await expect(cache.get("k", () => Promise.reject(new Error("down")))).rejects.toThrow("down");
    expect(await cache.get("k", async () => "up")).toBe("up");
  });

  it("holds at most `max` answers, forgetting the oldest", async () => {
    let calls = 0;
    const cache = createProviderCache({ ttlMs: 60_000, max: 2 });
    const load = async () => ++calls;
    await cache.get("a", load);
    await cache.get("b", load);
    await cache.get("c", load);
    expect(await cache.get("a", load)).toBe(4);
  });
});

describe("the wallet parameter", () => {
  it("reads a 0x address as EVM (lower case) and a base58 public key as Solana (kept)", () => {
    expect(
      tokenOptionsQuerySchema.parse({ wallet: "0x90F79bf6EB2c4f870365E785982E1f101E93b906" }).wallet,
    ).toEqual({
      family: "evm",
      address: "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
    });
    const key = "8eyPT29SUUzVc1yqYCq8tS349594DWiQ1i6z3nzhv8a2";
    expect(tokenOptionsQuerySchema.parse({ wallet: key }).wallet).toEqual({ family: "solana", address: key });
  });

  it.each(["0x1234", "not a wallet", "0OIl", ""])("refuses %j", (wallet) => {
    expect(tokenOptionsQuerySchema.safeParse({ wallet }).success).toBe(false);
  });
});
