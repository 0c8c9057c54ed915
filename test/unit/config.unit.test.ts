import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config.ts";

describe("configuration", () => {
  it("defaults every setting the interface names", () => {
    const c = parseConfig({});
    expect(c).toMatchObject({
      MERCHANT_MODE: "off",
      CORS_ALLOWED_ORIGINS: [],
      WEBHOOK_ALLOW_INSECURE: false,
      RATE_LIMIT_PER_SECOND: 5,
      RATE_LIMIT_BURST: 60,
      SSE_KEEPALIVE_MS: 15_000,
    });
    expect(c.evmChains).toBeUndefined();
  });

  it("parses lists and booleans", () => {
    const c = parseConfig({
      CORS_ALLOWED_ORIGINS: "https://a.example, https://b.example",
      WEBHOOK_ALLOW_INSECURE: "true",
    });
    expect(c.CORS_ALLOWED_ORIGINS).toEqual(["https://a.example", "https://b.example"]);
    expect(c.WEBHOOK_ALLOW_INSECURE).toBe(true);
  });

  it.each([
    ["PORT", "eighty"],
    ["MERCHANT_MODE", "maybe"],
    ["RATE_LIMIT_BURST", "-1"],
    ["SESSION_TTL_SECONDS", "5"],
    ["WEBHOOK_ALLOW_INSECURE", "sure"],
    ["CASSANDRA_KEYSPACE", "drop table"],
  ])("a bad %s stops with a message naming it", (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(name);
  });

  it("EVM_CHAINS must be a JSON array of valid chains", () => {
    expect(() => parseConfig({ EVM_CHAINS: "not json" })).toThrow(/EVM_CHAINS/);
    expect(() => parseConfig({ EVM_CHAINS: JSON.stringify([{ name: "a", chainId: 1 }]) })).toThrow(
      /EVM_CHAINS\.0\.rpcUrl/,
    );
    const ok = parseConfig({
      EVM_CHAINS: JSON.stringify([
        {
          name: "a",
          chainId: 1,
          rpcUrl: "http://127.0.0.1:8545",
          delegate: "0x00000000000000000000000000000000000000AA",
        },
      ]),
    });
    expect(ok.evmChains?.[0]).toMatchObject({
      confirmations: 2,
      delegate: "0x00000000000000000000000000000000000000aa",
    });
  });
});
