import type { FastifyInstance } from "fastify";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterEach, describe, expect, it } from "vitest";
import { sessionSchema } from "../../src/api/sessions.ts";
import { signAuthorization } from "../../src/client/actions/sign-authorization.ts";
import type { CreateSession } from "../../src/domain/commands.ts";
import { ReplyTimeoutError } from "../../src/gateway/ports.ts";
import { registry } from "../../src/ops/metrics.ts";
import { badSessionBodies } from "../support/bad-session-bodies.ts";
import {
  ALLOWED_ORIGIN,
  CHAIN_ID,
  DELEGATE,
  healthReport,
  START_MS,
  signedSessionBody,
  testGateway,
} from "../support/memory-gateway.ts";

let app: FastifyInstance | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

async function setup(env: Record<string, string> = {}) {
  const gw = await testGateway(env);
  app = gw.app;
  return gw;
}

const post = (a: FastifyInstance, body: unknown, headers: Record<string, string> = {}) =>
  a.inject({
    method: "POST",
    url: "/sessions",
    payload: JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });

describe("POST /sessions", () => {
  it("creates an anonymous session and answers id, status and expires_at", async () => {
    const { app, service } = await setup();
    const body = await signedSessionBody();
    const res = await post(app, body);
    expect(res.statusCode).toBe(200);
    const created = res.json();
    expect(created).toEqual({
      id: expect.any(String),
      status: "pending",
      expires_at: START_MS / 1000 + 3600,
    });
    const command = service.sent[0] as CreateSession;
    expect(command.data).toMatchObject({
      sessionId: created.id,
      flow: "p2p_request",
      merchantId: null,
      burner: body.burner_address.toLowerCase(),
      appFeeBps: 0,
      appFeeRecipient: "0x0000000000000000000000000000000000000000",
      destChainId: 8453,
    });
    expect(command.metadata).toEqual({ commandId: expect.any(String), issuedAt: START_MS, replyTo: null });
  });

  it("answers a retry with the same Idempotency-Key with the same session, applied once", async () => {
    const { app, service } = await setup();
    const body = await signedSessionBody();
    const first = await post(app, body, { "idempotency-key": "order-42" });
    const again = await post(app, body, { "idempotency-key": "order-42" });
    expect(again.statusCode).toBe(200);
    expect(again.json().id).toBe(first.json().id);
    expect(service.states.get(first.json().id)?.version).toBe(1);
  });

  it("refuses an Idempotency-Key reused for another body with 409", async () => {
    const { app } = await setup();
    await post(app, await signedSessionBody(), { "idempotency-key": "order-43" });
    const other = await post(app, await signedSessionBody(), { "idempotency-key": "order-43" });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toEqual({ error: expect.any(String) });
  });

  it("creates distinct sessions without a key", async () => {
    const { app } = await setup();
    const body = await signedSessionBody();
    const [a, b] = [await post(app, body), await post(app, body)];
    expect(a.json().id).not.toBe(b.json().id);
  });

  it("refuses an authorization the burner did not sign, before any command is sent", async () => {
    const { app, service } = await setup();
    const res = await post(app, await signedSessionBody({ signer: generatePrivateKey() }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/not signed by the burner/);
    expect(service.sent).toHaveLength(0);
  });

  it("refuses the relayer as a burner even with its own authorization: 400 burner_is_service_address, nothing sent", async () => {
    const key = generatePrivateKey();
    const relayer = privateKeyToAccount(key);
    const chains = [
      {
        name: "local",
        chainId: CHAIN_ID,
        rpcUrl: "http://127.0.0.1:8545",
        delegate: DELEGATE,
        relayer: { address: relayer.address, privateKey: key },
      },
    ];
    const { app, service } = await setup({ EVM_CHAINS: JSON.stringify(chains) });
    const { standing_refund: _, ...body } = await signedSessionBody();
    const auth = await signAuthorization({ signer: relayer, chainId: CHAIN_ID, delegate: DELEGATE });
    const res = await post(app, { ...body, burner_address: relayer.address, eip7702_auth: auth });
    expect([res.statusCode, res.json().error]).toEqual([400, expect.stringMatching(/service's own/)]);
    expect(service.sent).toHaveLength(0);
    // The same body with a burner of the payer's own is taken: only the address is refused.
    expect((await post(app, await signedSessionBody())).statusCode).toBe(200);
  });

  it("refuses a standing refund whose deadline has passed", async () => {
    const { app } = await setup();
    const res = await post(app, await signedSessionBody({ deadline: START_MS / 1000 - 1 }));
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/deadline/);
  });

  it("answers 503 with Retry-After when the owner does not reply in time", async () => {
    const { app, service } = await setup();
    service.failNextSend(new ReplyTimeoutError("no reply"));
    const res = await post(app, await signedSessionBody());
    expect(res.statusCode).toBe(503);
    expect(res.headers["retry-after"]).toBe("1");
    expect(res.json()).toEqual({ error: expect.stringMatching(/retry/) });
  });

  it("answers 500 internal error for an unexpected failure, without its details", async () => {
    const { app, service } = await setup();
    service.failNextSend(new Error("kafka exploded at 10.0.0.7"));
    const res = await post(app, await signedSessionBody());
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ error: "internal error" });
  });

  it("answers every corpus body with a 4xx { error } and sends no command", async () => {
    const { app, service } = await setup({ RATE_LIMIT_BURST: "100000" });
    for (const { name, body } of badSessionBodies()) {
      const res = await post(app, body);
      if (res.statusCode < 400 || res.statusCode >= 500) throw new Error(`${name}: ${res.statusCode}`);
      expect(Object.keys(res.json())).toEqual(["error"]);
    }
    expect(service.sent).toHaveLength(0);
    // Hundreds of signed bodies: 4.5 s alone on 2 cores, past vitest's 5 s default under load.
  }, 20_000);
});

describe("GET /sessions/:id", () => {
  it("returns the Session object, exactly its fields, uncached", async () => {
    const { app } = await setup();
    const { id } = (await post(app, await signedSessionBody())).json();
    const res = await app.inject({ url: `/sessions/${id.toUpperCase()}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers["cache-control"]).toBe("no-store");
    expect(Object.keys(res.json()).sort()).toEqual(Object.keys(sessionSchema.shape).sort());
    expect(res.json()).toMatchObject({ id, status: "pending", dest_chain_id: 8453, deposits: [] });
  });

  it("answers 404 for an unknown session and 400 for an id that is not a UUID", async () => {
    const { app } = await setup();
    const missing = await app.inject({ url: "/sessions/6f1c1d9e-8f2a-4b7c-9d1e-2a3b4c5d6e7f" });
    expect([missing.statusCode, missing.json()]).toEqual([404, { error: "session not found" }]);
    const bad = await app.inject({ url: "/sessions/not-a-uuid" });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/params\.id/);
  });
});

describe("errors", () => {
  it.each([
    ["malformed JSON", "{nope", "application/json", 400],
    ["an empty body", "", "application/json", 400],
    ["a __proto__ key", '{"__proto__": {"admin": true}}', "application/json", 400],
    ["a constructor.prototype key", '{"a": {"constructor": {"prototype": {}}}}', "application/json", 400],
    ["a text body", "hello", "text/plain", 415],
    ["a form body", "a=1", "application/x-www-form-urlencoded", 415],
  ])("answers %s with %s-coded { error }", async (_name, payload, type, status) => {
    const { app } = await setup();
    const res = await app.inject({
      method: "POST",
      url: "/sessions",
      payload,
      headers: { "content-type": type },
    });
    expect(res.statusCode).toBe(status);
    expect(Object.keys(res.json())).toEqual(["error"]);
  });

  it("answers a body over BODY_LIMIT_BYTES with 413", async () => {
    const { app } = await setup({ BODY_LIMIT_BYTES: "2048" });
    const res = await post(app, { pad: "x".repeat(4096) });
    expect([res.statusCode, res.json()]).toEqual([
      413,
      { error: "the request body is larger than 2048 bytes" },
    ]);
  });

  it("names the offending field of a schema error", async () => {
    const { app } = await setup();
    const body = { ...(await signedSessionBody()), destination_chain: "8453" };
    const res = await post(app, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/^body\.destination_chain: /);
  });

  it("answers an unknown route with 404 { error }", async () => {
    const { app } = await setup();
    const res = await app.inject({ url: "/v1/payment_sessions" });
    expect([res.statusCode, res.json()]).toEqual([404, { error: "route not found" }]);
  });
});

describe("rate limit and CORS", () => {
  it("refuses the 61st request of a burst with 429, Retry-After and the CORS headers", async () => {
    const { app, advance } = await setup();
    const get = () => app.inject({ url: "/sessions/not-a-uuid", headers: { origin: ALLOWED_ORIGIN } });
    for (let i = 0; i < 60; i++) expect((await get()).statusCode).toBe(400);
    const limited = await get();
    expect(limited.statusCode).toBe(429);
    expect(limited.headers["retry-after"]).toBe("1");
    expect(limited.headers["access-control-allow-origin"]).toBe(ALLOWED_ORIGIN);
    expect(limited.headers["access-control-expose-headers"]).toMatch(/Retry-After/);
    expect(limited.json()).toEqual({ error: expect.stringMatching(/rate limit/) });
    advance(200);
    expect((await get()).statusCode).toBe(400);
  });

  it("never rate-limits GET /health", async () => {
    const { app } = await setup();
    for (let i = 0; i < 100; i++) expect((await app.inject({ url: "/health" })).statusCode).toBe(200);
    expect((await app.inject({ url: "/sessions/x" })).statusCode).toBe(400);
  });

  it("keys clients by peer address, ignoring X-Forwarded-For", async () => {
    const { app } = await setup({ RATE_LIMIT_BURST: "1" });
    const from = (ip: string, xff?: string) =>
      app.inject({ url: "/sessions/x", remoteAddress: ip, headers: xff ? { "x-forwarded-for": xff } : {} });
    expect((await from("198.51.100.1")).statusCode).toBe(400);
    expect((await from("198.51.100.1", "203.0.113.9")).statusCode).toBe(429);
    expect((await from("198.51.100.2")).statusCode).toBe(400);
  });

  it("answers preflights for allowed origins only, with the spec's headers", async () => {
    const { app } = await setup();
    const preflight = (origin: string) =>
      app.inject({
        method: "OPTIONS",
        url: "/sessions",
        headers: { origin, "access-control-request-method": "POST" },
      });
    const ok = await preflight(ALLOWED_ORIGIN);
    expect(ok.statusCode).toBe(204);
    expect(ok.headers["access-control-allow-origin"]).toBe(ALLOWED_ORIGIN);
    expect(ok.headers["access-control-allow-headers"]).toBe(
      "Authorization, X-Client-Secret, Idempotency-Key, Content-Type",
    );
    const other = await preflight("https://evil.example");
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("sends no CORS origin header at all when the allowlist is empty", async () => {
    const { app } = await setup({ CORS_ALLOWED_ORIGINS: "" });
    const res = await app.inject({ url: "/health", headers: { origin: ALLOWED_ORIGIN } });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
    const preflight = await app.inject({
      method: "OPTIONS",
      url: "/sessions",
      headers: { origin: ALLOWED_ORIGIN, "access-control-request-method": "POST" },
    });
    expect([preflight.statusCode, preflight.headers["access-control-allow-origin"]]).toEqual([
      404,
      undefined,
    ]);
  });

  it("never honours a wildcard in the allowlist", async () => {
    const { app } = await setup({ CORS_ALLOWED_ORIGINS: "*" });
    const res = await app.inject({ url: "/health", headers: { origin: "https://evil.example" } });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("GET /health", () => {
  it("answers 200 with the report when healthy and 503 with it when not", async () => {
    const { app, service } = await setup();
    expect((await app.inject({ url: "/health" })).json()).toEqual(healthReport(true));
    service.setHealth(healthReport(false));
    const down = await app.inject({ url: "/health" });
    expect([down.statusCode, down.json()]).toEqual([503, healthReport(false)]);
  });

  it("answers 503 { error } when the check itself fails", async () => {
    const { app, service } = await setup();
    service.setHealth(new Error("boom"));
    const res = await app.inject({ url: "/health" });
    expect([res.statusCode, res.json()]).toEqual([503, { error: "the health check could not run" }]);
  });
});

describe("GET /metrics", () => {
  it("is not served on the API port, even with the metrics registry: 404 (src/ops/metrics-server.ts serves it)", async () => {
    const gw = await testGateway({}, { metrics: registry });
    app = gw.app;
    await gw.app.inject({ url: "/health" });
    const res = await gw.app.inject({ url: "/metrics" });
    expect([res.statusCode, res.json()]).toEqual([404, { error: "route not found" }]);
    // The requests are still counted, for the metrics port to serve.
    expect(await registry.metrics()).toMatch(
      /settlement_http_requests_total\{method="GET",route="\/health",status="200"\} \d+/,
    );
  });
});

describe("OpenAPI", () => {
  it("serves the document generated from the route schemas, and the docs page", async () => {
    const { app } = await setup();
    const doc = (await app.inject({ url: "/openapi.json" })).json();
    expect(Object.keys(doc.paths).sort()).toEqual([
      "/balances",
      "/health",
      "/quote",
      "/sessions",
      "/sessions/{id}",
      "/sessions/{id}/commit",
      "/sessions/{id}/events",
      "/sessions/{id}/quote",
      "/sessions/{id}/refund",
      "/sessions/{id}/refund-all",
      "/sessions/{id}/standing-refund",
      "/sessions/{id}/token-options",
    ]);
    const body = doc.paths["/sessions"].post.requestBody.content["application/json"].schema;
    expect(body.additionalProperties).toBe(false);
    expect(body.required).toEqual([
      "burner_address",
      "eip7702_auth",
      "destination_address",
      "destination_chain",
    ]);
    expect((await app.inject({ url: "/docs" })).statusCode).toBe(200);
  });
});
