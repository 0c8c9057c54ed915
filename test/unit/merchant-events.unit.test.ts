import { describe, expect, it } from "vitest";
import { eventListQuery } from "../../src/api/events.ts";
import { EVENT_ID } from "../../src/domain/webhooks.ts";
import { createGateway } from "../../src/gateway/app.ts";
import { createGuards } from "../../src/gateway/auth.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";
import { eventView, listPage } from "../../src/gateway/routes/merchant-events.ts";
import {
  EVENT_RETENTION_MS,
  eventIdOf,
  type MerchantEventRow,
  ttlSecondsLeft,
} from "../../src/store/merchant-events.ts";
import type { KeyByHash } from "../../src/store/merchants.ts";
import { memoryService, testConfig } from "../support/memory-gateway.ts";

// The pure parts of the event list: ids, time left, query parsing, pages. The routes on the real
// stack are test/e2e/off-chain/merchant-events.e2e.test.ts.

const row = (i: number, over: Partial<MerchantEventRow> = {}): MerchantEventRow => ({
  id: eventIdOf(`s${i}:payment.detected`),
  merchantId: "mer_a",
  type: "payment.detected",
  createdAt: 1_700_000_000_999 - i,
  idempotencyKey: `s${i}:payment.detected`,
  sessionId: `s${i}`,
  payload: `{"session_id":"s${i}","amount":"5"}`,
  ...over,
});

describe("event ids", () => {
  it("are evt_ and the first 128 bits of the key's SHA-256 in hex", () => {
    // SHA-256("abc") is FIPS 180-2's first example.
    expect(eventIdOf("abc")).toBe("evt_ba7816bf8f01cfea414140de5dae2223");
    expect(eventIdOf("abc")).toMatch(EVENT_ID);
  });

  it("name the same key the same everywhere, and different keys differently", () => {
    expect(eventIdOf("s1:payment.detected")).toBe(eventIdOf("s1:payment.detected"));
    expect(eventIdOf("s1:payment.detected")).not.toBe(eventIdOf("s1:payment.succeeded"));
  });
});

describe("time left of an event's 30 days", () => {
  const now = 1_800_000_000_000;
  it("is 30 days for a new event and counts from its creation, not from the write", () => {
    expect(ttlSecondsLeft(now, now)).toBe(30 * 24 * 3600);
    expect(ttlSecondsLeft(now - 29 * 24 * 3600 * 1000, now)).toBe(24 * 3600);
  });
  it("is none for an event past its 30 days", () => {
    expect(ttlSecondsLeft(now - EVENT_RETENTION_MS, now)).toBe(0);
    expect(ttlSecondsLeft(now - EVENT_RETENTION_MS - 1000, now)).toBeLessThan(0);
  });
});

describe("the list's query", () => {
  it("defaults limit to 10 and takes limit, starting_after and type", () => {
    expect(eventListQuery.parse({})).toEqual({ limit: 10 });
    const id = eventIdOf("k");
    expect(eventListQuery.parse({ limit: "100", starting_after: id, type: "subscription.charged" })).toEqual({
      limit: 100,
      starting_after: id,
      type: "subscription.charged",
    });
  });

  it.each([
    [{ limit: "0" }],
    [{ limit: "101" }],
    [{ limit: "ten" }],
    [{ limit: "2.5" }],
    [{ limit: ["1", "2"] }],
    [{ starting_after: "evt_123" }],
    [{ starting_after: `evt_${"A".repeat(32)}` }],
    [{ starting_after: `${eventIdOf("k")} ` }],
    [{ type: "" }],
    [{ type: "payment" }],
    [{ type: "Payment.Succeeded" }],
    [{ type: "payment.*" }],
    [{ ending_before: eventIdOf("k") }],
  ])("refuses %j", (query) => {
    expect(eventListQuery.safeParse(query).success).toBe(false);
  });
});

describe("a page", () => {
  it("shows limit events and has_more when the store answered one more", () => {
    const rows = [row(0), row(1), row(2)];
    const page = listPage(rows, 2);
    expect(page).toMatchObject({ object: "list", url: "/v1/events", has_more: true });
    expect(page.data.map((e) => e.id)).toEqual([rows[0]?.id, rows[1]?.id]);
    expect(listPage(rows.slice(0, 2), 2).has_more).toBe(false);
    expect(listPage([], 10)).toEqual({ object: "list", data: [], has_more: false, url: "/v1/events" });
  });

  it("shows an event with created in Unix seconds and the webhook body as data", () => {
    expect(eventView(row(0, { sessionId: null }))).toEqual({
      id: eventIdOf("s0:payment.detected"),
      object: "event",
      type: "payment.detected",
      created: 1_700_000_000,
      idempotency_key: "s0:payment.detected",
      session_id: null,
      data: { session_id: "s0", amount: "5" },
    });
  });
});

describe("routes by setting", () => {
  const sk = issueKey("secret", "test");
  const key: KeyByHash = { ...sk.issued, merchantId: "mer_a", createdAt: 1, revokedAt: null };
  const gateway = async (mode: string) => {
    const { commands, sessions, live, health } = memoryService();
    const keys = { keyByHash: async (h: string) => (h === key.hash ? key : null) };
    return createGateway({
      config: testConfig({ MERCHANT_MODE: mode, RATE_LIMIT_BURST: "1000" }),
      commands,
      sessions,
      live,
      health,
      // Only the guards are used: no merchant route is called.
      merchants: { admin: {} as never, guards: createGuards({ keys, mode: "test" }) },
      merchantEvents: {
        get: async (id) => (id === row(0).id ? row(0) : null),
        page: async (_merchant, { limit }) => [row(0), row(1)].slice(0, limit),
      },
    });
  };
  const auth = { authorization: `Bearer ${sk.key}` };

  it("MERCHANT_MODE=off: GET /v1/events and /v1/events/:id are 404, even with a valid key", async () => {
    const app = await gateway("off");
    for (const url of ["/v1/events", `/v1/events/${row(0).id}`]) {
      const res = await app.inject({ method: "GET", url, headers: auth });
      expect([url, res.statusCode, res.json()]).toEqual([url, 404, { error: "route not found" }]);
    }
  });

  it("merchant mode: they exist under the secret key", async () => {
    const app = await gateway("development");
    const list = await app.inject({ method: "GET", url: "/v1/events?limit=1", headers: auth });
    expect(list.statusCode).toBe(200);
    expect(list.json()).toMatchObject({ has_more: true, data: [{ id: row(0).id }] });
    const one = await app.inject({ method: "GET", url: `/v1/events/${row(0).id}`, headers: auth });
    expect(one.json()).toMatchObject({ id: row(0).id, object: "event" });
    const doc = (await app.inject({ method: "GET", url: "/openapi.json" })).json();
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/v1/events", "/v1/events/{id}"]));
  });
});
