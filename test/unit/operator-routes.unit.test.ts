import { describe, expect, it } from "vitest";
import { createGateway } from "../../src/gateway/app.ts";
import { type Operator, OperatorRefused } from "../../src/operator/operator.ts";
import { memoryService, testConfig } from "../support/memory-gateway.ts";

const SECRET = "s".repeat(40);
const MODELS = {
  active: "sessions",
  following: [],
  retired: [],
  version: 0,
  read_by_this_gateway: "sessions",
};

/** The routes' own behaviour (guard, validation, refusals as registered errors) over a scripted operator. */
function scriptedOperator(calls: string[]): Operator {
  return {
    journal: async (id) => {
      calls.push(`journal ${id}`);
      throw new OperatorRefused("session_not_found", "no such session");
    },
    deadLetters: async () => [],
    redrive: async (w) => {
      calls.push(`redrive ${w.topic}/${w.partition}@${w.offset}`);
      throw new OperatorRefused("already_redriven", "re-driven already (to offset 9)");
    },
    lag: async () => ({ roles: [] }),
    readModels: async () => MODELS,
    build: async (table) => {
      calls.push(`build ${table}`);
      throw new OperatorRefused("read_model_exists", `${table} is written already`);
    },
    switchTo: async () => MODELS,
    retire: async () => MODELS,
  };
}

async function gateway(env: Record<string, string>, calls: string[] = []) {
  const service = memoryService();
  return createGateway({
    config: testConfig(env),
    commands: service.commands,
    sessions: service.sessions,
    live: service.live,
    health: service.health,
    operator: scriptedOperator(calls),
  });
}

const auth = (secret: string) => ({ authorization: `Bearer ${secret}` });

describe("operator routes", () => {
  it("do not exist without OPERATOR_SECRET", async () => {
    const app = await gateway({});
    const res = await app.inject({ method: "GET", url: "/v1/operator/lag", headers: auth(SECRET) });
    expect([res.statusCode, res.json()]).toEqual([404, { error: "route not found" }]);
  });

  it("answer 401 with a JSON error for a missing or wrong secret, before the body is validated", async () => {
    const calls: string[] = [];
    const app = await gateway({ OPERATOR_SECRET: SECRET }, calls);
    const missing = await app.inject({ method: "GET", url: "/v1/operator/read-models" });
    expect([missing.statusCode, missing.json(), missing.headers["www-authenticate"]]).toEqual([
      401,
      { error: "missing operator secret" },
      "Bearer",
    ]);
    const wrong = await app.inject({
      method: "POST",
      url: "/v1/operator/read-models",
      headers: { ...auth(`${SECRET}x`), "content-type": "application/json" },
      payload: "{not json",
    });
    expect([wrong.statusCode, wrong.json()]).toEqual([401, { error: "invalid operator secret" }]);
    expect(calls).toEqual([]);
  });

  it("answer with the secret, and turn the tools' refusals into their registered errors", async () => {
    const calls: string[] = [];
    const app = await gateway({ OPERATOR_SECRET: SECRET }, calls);
    const ok = await app.inject({ method: "GET", url: "/v1/operator/read-models", headers: auth(SECRET) });
    expect([ok.statusCode, ok.json()]).toEqual([200, MODELS]);
    const post = (url: string, body: unknown) =>
      app.inject({ method: "POST", url, headers: auth(SECRET), payload: body as object });
    const again = await post("/v1/operator/dead-letters/redrive", { topic: "t", partition: 0, offset: 3 });
    expect([again.statusCode, again.json()]).toEqual([409, { error: "re-driven already (to offset 9)" }]);
    const exists = await post("/v1/operator/read-models", { table: "sessions" });
    expect(exists.statusCode).toBe(409);
    const unknown = await app.inject({
      method: "GET",
      url: "/v1/operator/sessions/6f1c2d1e-0000-4000-8000-000000000001/journal",
      headers: auth(SECRET),
    });
    expect([unknown.statusCode, unknown.json()]).toEqual([404, { error: "no such session" }]);
    expect(calls).toEqual([
      "redrive t/0@3",
      "build sessions",
      "journal 6f1c2d1e-0000-4000-8000-000000000001",
    ]);
  });

  it("refuse bad input with 400 and never call the tool", async () => {
    const calls: string[] = [];
    const app = await gateway({ OPERATOR_SECRET: SECRET }, calls);
    const post = (url: string, body: unknown) =>
      app.inject({ method: "POST", url, headers: auth(SECRET), payload: body as object });
    for (const [url, body] of [
      ["/v1/operator/read-models", { table: "Sessions; DROP" }],
      ["/v1/operator/read-models", { table: "x".repeat(49) }],
      ["/v1/operator/read-models/switch", {}],
      ["/v1/operator/dead-letters/redrive", { topic: "t", partition: -1, offset: 0 }],
      ["/v1/operator/dead-letters/redrive", { topic: "t", partition: 0, offset: 1.5 }],
      ["/v1/operator/dead-letters/redrive", { topic: "t", partition: 0, offset: 0, extra: 1 }],
    ] as const) {
      const res = await post(url, body);
      expect([url, res.statusCode]).toEqual([url, 400]);
      expect(typeof res.json().error).toBe("string");
    }
    const badId = await app.inject({
      method: "GET",
      url: "/v1/operator/sessions/nope/journal",
      headers: auth(SECRET),
    });
    expect(badId.statusCode).toBe(400);
    expect(calls).toEqual([]);
  });
});
