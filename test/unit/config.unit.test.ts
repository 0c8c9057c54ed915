import { describe, expect, it } from "vitest";
import { evmChainsOf } from "../../src/chains/config.ts";
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
    expect(c.chains).toBeUndefined();
  });

  it("refuses METRICS_PORT equal to PORT: the metrics are never on the API's port", () => {
    expect(() => parseConfig({ PORT: "9464", METRICS_PORT: "9464" })).toThrow(
      /METRICS_PORT: must differ from PORT/,
    );
    expect(parseConfig({ PORT: "0", METRICS_PORT: "0" }).METRICS_PORT).toBe(0);
  });

  it("takes the relayer budget in USDC base units and refuses the gas budget it replaced", () => {
    expect(parseConfig({}).SESSION_RELAYER_BUDGET).toBe("6000000");
    expect(parseConfig({ SESSION_RELAYER_BUDGET: "2500000" }).SESSION_RELAYER_BUDGET).toBe("2500000");
    expect(() => parseConfig({ SESSION_RELAYER_BUDGET: "6 USDC" })).toThrow(/SESSION_RELAYER_BUDGET/);
    expect(() => parseConfig({ SESSION_GAS_BUDGET: "2000000" })).toThrow(
      /SESSION_GAS_BUDGET: replaced by SESSION_RELAYER_BUDGET/,
    );
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
    ["FILL_INVENTORY_FLOOR", "1.5"],
    ["FILL_INVENTORY_FLOOR", "-1"],
    ["FILL_RETRY_MS", "10"],
  ])("a bad %s stops with a message naming it", (name, value) => {
    expect(() => parseConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => parseConfig({ [name]: value })).toThrow(name);
  });

  it("the fast fill's settings: the floor in USDC base units (a bigint), the wait and its bound", () => {
    expect(parseConfig({})).toMatchObject({
      FILL_INVENTORY_FLOOR: 0n,
      FILL_RETRY_MS: 10_000,
      FILL_MAX_WAIT_MS: 600_000,
    });
    const c = parseConfig({ FILL_INVENTORY_FLOOR: "1000000000000000000000", FILL_MAX_WAIT_MS: "0" });
    expect(c.FILL_INVENTORY_FLOOR).toBe(10n ** 21n);
    expect(c.FILL_MAX_WAIT_MS).toBe(0);
  });

  it("SCHEMA_REGISTRY_URL is refused, not ignored: there is no registry wire format", () => {
    expect(() => parseConfig({ SCHEMA_REGISTRY_URL: "http://127.0.0.1:8081" })).toThrow(
      /SCHEMA_REGISTRY_URL: not supported/,
    );
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
    expect(evmChainsOf(ok.chains ?? [])[0]).toMatchObject({
      confirmations: 2,
      delegate: "0x00000000000000000000000000000000000000aa",
    });
  });
});

describe("CHAINS: one list of chains, each naming its family", () => {
  const evm = { name: "a", chainId: 1, rpcUrl: "http://127.0.0.1:8545", delegate: `0x${"ab".repeat(20)}` };

  it("an entry names its family; EVM entries also appear in evmChains", () => {
    const c = parseConfig({ CHAINS: JSON.stringify([{ family: "evm", ...evm }]) });
    expect(c.chains).toEqual([expect.objectContaining({ family: "evm", chainId: 1, confirmations: 2 })]);
    expect(evmChainsOf(c.chains ?? [])).toEqual(c.chains);
  });

  it("an entry without a family, or of an unknown family, stops with a message naming it", () => {
    expect(() => parseConfig({ CHAINS: JSON.stringify([evm]) })).toThrow(/CHAINS\.0\.family/);
    expect(() => parseConfig({ CHAINS: JSON.stringify([{ ...evm, family: "cosmos" }]) })).toThrow(
      /CHAINS\.0\.family/,
    );
  });

  it("EVM_CHAINS is the older name: its entries are EVM chains; setting both is refused", () => {
    expect(parseConfig({ EVM_CHAINS: JSON.stringify([evm]) }).chains?.[0]?.family).toBe("evm");
    const both = { CHAINS: JSON.stringify([{ family: "evm", ...evm }]), EVM_CHAINS: JSON.stringify([evm]) };
    expect(() => parseConfig(both)).toThrow(/not both/);
  });

  it("a chain id configured twice is refused: the family is known from the chain id", () => {
    const twice = JSON.stringify([
      { family: "evm", ...evm },
      { family: "evm", ...evm, name: "b" },
    ]);
    expect(() => parseConfig({ CHAINS: twice })).toThrow(/chain id 1 is configured twice/);
  });
});
