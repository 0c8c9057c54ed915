import { describe, expect, it } from "vitest";
import type { MerchantAdmin, WebhookEndpointAdmin } from "../../src/gateway/admin/merchant-admin.ts";
import { createGateway } from "../../src/gateway/app.ts";
import { createGuards } from "../../src/gateway/auth.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";
import { webhookEndpointRoutes } from "../../src/gateway/routes/webhook-endpoints.ts";
import type { KeyByHash } from "../../src/store/merchants.ts";
import { bareGateway, memoryService, testConfig } from "../support/memory-gateway.ts";

// Which URLs the PUT route takes under which settings, over an in-memory endpoint (the real
// stack's behaviour is test/e2e/off-chain/webhook-endpoints.e2e.test.ts).
const sk = issueKey("secret", "test");
const row: KeyByHash = { ...sk.issued, merchantId: "mer_a", createdAt: 1, revokedAt: null };

function memoryEndpoints(): WebhookEndpointAdmin & { sets: string[] } {
  let current: { id: string; url: string; created_at: string } | null = null;
  const sets: string[] = [];
  return {
    sets,
    async setWebhookEndpoint(_merchantId, url) {
      sets.push(url);
      current = { id: `we_${sets.length}`, url, created_at: new Date(0).toISOString() };
      return { ...current, secret: "whsec_test" };
    },
    webhookEndpoint: async () => current,
    async removeWebhookEndpoint() {
      const had = current !== null;
      current = null;
      return had;
    },
  };
}

async function gateway(env: Record<string, string>, endpoints = memoryEndpoints()) {
  const { commands, sessions, live, health } = memoryService();
  const app = await createGateway({
    config: testConfig({ RATE_LIMIT_BURST: "1000", ...env }),
    commands,
    sessions,
    live,
    health,
    merchants: {
      admin: {} as MerchantAdmin,
      webhookEndpoints: endpoints,
      guards: createGuards({ keys: { keyByHash: async (h) => (h === row.hash ? row : null) }, mode: "test" }),
    },
  });
  const put = (url: string) =>
    app.inject({
      method: "PUT",
      url: "/v1/webhook_endpoints",
      headers: { authorization: `Bearer ${sk.key}` },
      payload: { url },
    });
  return { app, endpoints, put };
}

describe("webhook endpoint routes by setting", () => {
  it("MERCHANT_MODE=off: the routes are 404", async () => {
    const { app } = await gateway({ MERCHANT_MODE: "off" });
    for (const method of ["GET", "PUT", "DELETE"] as const) {
      const res = await app.inject({ method, url: "/v1/webhook_endpoints" });
      expect([method, res.statusCode]).toEqual([method, 404]);
    }
  });

  it("development without WEBHOOK_ALLOW_INSECURE: http://localhost is 400; nothing is set", async () => {
    const { put, endpoints } = await gateway({ MERCHANT_MODE: "development" });
    const res = await put("http://localhost:8080/hooks");
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: "the webhook URL must be https" });
    expect(endpoints.sets).toEqual([]);
  });

  it("production ignores WEBHOOK_ALLOW_INSECURE", async () => {
    const { put } = await gateway({ MERCHANT_MODE: "production", WEBHOOK_ALLOW_INSECURE: "true" });
    expect((await put("http://localhost:8080/hooks")).statusCode).toBe(400);
  });

  it("refuses blocked addresses in every spelling before anything is set", async () => {
    const { put, endpoints } = await gateway({
      MERCHANT_MODE: "development",
      WEBHOOK_ALLOW_INSECURE: "true",
    });
    for (const url of [
      "https://127.0.0.1/x",
      "https://0177.0.0.1/x",
      "https://10.1.2.3/x",
      "https://172.16.0.1/x",
      "https://192.168.1.1/x",
      "https://[::1]/x",
      "https://[fc00::1]/x",
      "https://[fe80::1]/x",
      "https://0.0.0.0/x",
      "https://user:pw@example.com/x",
    ]) {
      const res = await put(url);
      expect([url, res.statusCode]).toEqual([url, 400]);
    }
    expect(endpoints.sets).toEqual([]);
  });

  it("development with WEBHOOK_ALLOW_INSECURE: http://localhost is set, the secret only in the PUT's answer", async () => {
    const { app, put } = await gateway({ MERCHANT_MODE: "development", WEBHOOK_ALLOW_INSECURE: "true" });
    const res = await put("http://localhost:8080/hooks");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ url: "http://localhost:8080/hooks", secret: "whsec_test" });
    const headers = { authorization: `Bearer ${sk.key}` };
    const got = await app.inject({ method: "GET", url: "/v1/webhook_endpoints", headers });
    expect(Object.keys(got.json()).sort()).toEqual(["created_at", "id", "url"]);
    const del = await app.inject({ method: "DELETE", url: "/v1/webhook_endpoints", headers });
    expect(del.statusCode).toBe(204);
    const none = await app.inject({ method: "GET", url: "/v1/webhook_endpoints", headers });
    expect([none.statusCode, none.body]).toEqual([200, "null"]);
  });
});

describe("PUT /v1/webhook_endpoints with a name server that never answers", () => {
  it("is refused at the look-up bound, and nothing is set", async () => {
    const endpoints = memoryEndpoints();
    const app = bareGateway();
    await app.register(webhookEndpointRoutes, {
      guards: createGuards({ keys: { keyByHash: async (h) => (h === row.hash ? row : null) }, mode: "test" }),
      endpoints,
      policy: { allowInsecureLocalhost: false },
      resolve: () => new Promise(() => {}),
      lookupTimeoutMs: 150,
    });
    const t0 = performance.now();
    const res = await app.inject({
      method: "PUT",
      url: "/v1/webhook_endpoints",
      headers: { authorization: `Bearer ${sk.key}` },
      payload: { url: "https://hooks.example.com/x" },
    });
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/did not resolve in time/);
    expect(endpoints.sets).toEqual([]);
  });
});
