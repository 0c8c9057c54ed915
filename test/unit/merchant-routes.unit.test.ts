import { describe, expect, it } from "vitest";
import type { MerchantAdmin } from "../../src/gateway/admin/merchant-admin.ts";
import { createGateway } from "../../src/gateway/app.ts";
import { createGuards } from "../../src/gateway/auth.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";
import type { KeyByHash } from "../../src/store/merchants.ts";
import { memoryService, testConfig } from "../support/memory-gateway.ts";

// Which merchant routes exist under which settings; the merchant behind them is a fixed record
// (the real stack's behaviour is test/e2e/off-chain/merchants.e2e.test.ts).
const sk = issueKey("secret", "test");
const row: KeyByHash = { ...sk.issued, merchantId: "mer_a", createdAt: 1, revokedAt: null };
const view = { id: "mer_a", name: "Shop", email: "a@shop.test", created_at: "", livemode: false, keys: [] };
const admin: MerchantAdmin = {
  create: async () => ({ merchant: view, publishableKey: "pk", secretKey: "sk" }),
  roll: async () => ({ keyId: "key_1", key: "sk_new" }),
  revoke: async () => {},
  view: async () => view,
};

async function gateway(env: Record<string, string>) {
  const service = memoryService();
  return createGateway({
    config: testConfig({ RATE_LIMIT_BURST: "1000", ...env }),
    commands: service.commands,
    sessions: service.sessions,
    live: service.live,
    health: service.health,
    merchants: {
      admin,
      guards: createGuards({ keys: { keyByHash: async (h) => (h === row.hash ? row : null) }, mode: "test" }),
    },
  });
}
const auth = { authorization: `Bearer ${sk.key}` };
const OPERATOR = { authorization: `Bearer ${"o".repeat(32)}` };

describe("merchant routes by setting", () => {
  it("MERCHANT_MODE=off: every merchant route is 404, even with valid credentials", async () => {
    const app = await gateway({ MERCHANT_MODE: "off", OPERATOR_SECRET: "o".repeat(32) });
    for (const [method, url, headers] of [
      ["GET", "/v1/merchant", auth],
      ["POST", "/v1/keys/roll", auth],
      ["POST", "/v1/keys/key_1/revoke", auth],
      ["POST", "/v1/operator/merchants", OPERATOR],
    ] as const) {
      const res = await app.inject({ method, url, headers });
      expect([url, res.statusCode]).toEqual([url, 404]);
    }
  });

  it("on without OPERATOR_SECRET: the operator routes are 404, the merchant routes exist", async () => {
    const app = await gateway({ MERCHANT_MODE: "development" });
    expect(
      (await app.inject({ method: "POST", url: "/v1/operator/merchants", headers: OPERATOR })).statusCode,
    ).toBe(404);
    expect((await app.inject({ method: "GET", url: "/v1/merchant", headers: auth })).statusCode).toBe(200);
  });

  it("on: bodies are checked after the key (401 first, then 400)", async () => {
    const app = await gateway({ MERCHANT_MODE: "development", OPERATOR_SECRET: "o".repeat(32) });
    const roll = (headers: Record<string, string>) =>
      app.inject({ method: "POST", url: "/v1/keys/roll", headers, payload: { type: "bogus" } });
    expect((await roll({})).statusCode).toBe(401);
    expect((await roll(auth)).statusCode).toBe(400);
    expect((await roll(auth)).json()).toEqual({ error: expect.stringContaining("type") });
    const create = await app.inject({
      method: "POST",
      url: "/v1/operator/merchants",
      headers: OPERATOR,
      payload: { name: "Shop", email: "a@shop.test", extra: 1 },
    });
    expect(create.statusCode).toBe(400);
  });
});
