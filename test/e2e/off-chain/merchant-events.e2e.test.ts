import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlainProducer, type PlainProducer } from "../../../src/kafka/at-least-once.ts";
import type { WebhookEvent } from "../../../src/records/webhook-events.ts";
import { eventIdOf } from "../../../src/store/merchant-events.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { json } from "../../support/http.ts";
import { createMerchant as operatorCreates } from "../../support/operator.ts";
import { startTestService, type TestService } from "../../support/service.ts";

// GET /v1/events and /v1/events/:id on the real stack: merchants made by the operator route (actors,
// projector), WebhookEvent records on webhook.events as the sessions' outbox writes them, the webhooks
// role recording them, the gateway listing them. The merchants set no endpoint: events are listed
// all the same, which is what the list is for.
const OPERATOR_SECRET = `operator-${"e".repeat(40)}`;
const T = 90_000;
let service: TestService;
let producer: PlainProducer;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "gateway", "webhooks"],
    env: { MERCHANT_MODE: "development", OPERATOR_SECRET, RATE_LIMIT_BURST: "1000" },
  });
  producer = createPlainProducer(service.kafka);
  await producer.connect();
}, T);
afterAll(async () => {
  await producer?.disconnect();
  await service?.stop();
}, T);

const get = (path: string, key?: string) =>
  fetch(`${service.url}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} });

interface Merchant {
  id: string;
  sk: string;
  pk: string;
}
async function createMerchant(): Promise<Merchant> {
  const m = await operatorCreates(service.url, OPERATOR_SECRET, "Events");
  return { id: m.id, sk: m.secretKey, pk: m.publishableKey };
}

/** A session's webhook event as the outbox writes it, created `ageMs` ago. */
function sessionEvent(merchantId: string, type: string, ageMs: number): WebhookEvent {
  const sessionId = randomUUID();
  return {
    idempotencyKey: `${sessionId}:${type}`,
    merchantId,
    eventType: type,
    sessionId,
    payload: JSON.stringify({
      session_id: sessionId,
      event_type: type,
      amount: "1000000",
      settled_amount: null,
      overpaid_amount: null,
    }),
    createdAt: Date.now() - ageMs,
  };
}

/** Publishes the events and waits until the merchant's list shows them all. */
async function publish(sk: string, events: WebhookEvent[]): Promise<void> {
  await producer.send(
    TOPIC.webhookEvents,
    events.map((e) => ({ key: e.merchantId, value: codecs.webhookEvent.encode(e) })),
  );
  const ids = events.map((e) => eventIdOf(e.idempotencyKey));
  await waitFor(
    "the events listed",
    async () => {
      const body = (await json(await get("/v1/events?limit=100", sk))) as { data: Array<{ id: string }> };
      const listed = new Set(body.data.map((e) => e.id));
      return ids.every((id) => listed.has(id)) ? true : undefined;
    },
    T,
  );
}

async function expect401(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("www-authenticate")).toBe("Bearer");
  expect(await json(res)).toEqual({ error: expect.any(String) });
}

const TYPES = ["payment.detected", "payment.processing", "payment.succeeded"];
let a: Merchant;
let b: Merchant;
/** Merchant a's events, newest first (a second apart). */
let mine: WebhookEvent[];

describe("the event list (MERCHANT_MODE=development)", () => {
  beforeAll(async () => {
    [a, b] = [await createMerchant(), await createMerchant()];
    mine = Array.from({ length: 12 }, (_, i) => sessionEvent(a.id, TYPES[i % 3] as string, i * 1000));
    await publish(a.sk, mine);
    await publish(b.sk, [sessionEvent(b.id, "payment.detected", 0)]);
  }, T);

  it("walks a merchant's events newest first in pages, with has_more, each once, as Stripe lists", async () => {
    const pages: Array<{ data: Array<Record<string, unknown>>; has_more: boolean }> = [];
    let after: string | undefined;
    do {
      const res = await get(`/v1/events?limit=5${after ? `&starting_after=${after}` : ""}`, a.sk);
      expect(res.status).toBe(200);
      const page = (await json(res)) as (typeof pages)[number] & { object: string; url: string };
      expect(page).toMatchObject({ object: "list", url: "/v1/events" });
      pages.push(page);
      after = page.data.at(-1)?.id as string | undefined;
    } while (pages.at(-1)?.has_more);
    expect(pages.map((p) => [p.data.length, p.has_more])).toEqual([
      [5, true],
      [5, true],
      [2, false],
    ]);
    const listed = pages.flatMap((p) => p.data);
    expect(listed.map((e) => e.id)).toEqual(mine.map((e) => eventIdOf(e.idempotencyKey)));
    const first = mine[0] as WebhookEvent;
    expect(listed[0]).toEqual({
      id: eventIdOf(first.idempotencyKey),
      object: "event",
      type: first.eventType,
      created: Math.floor(first.createdAt / 1000),
      idempotency_key: first.idempotencyKey,
      session_id: first.sessionId,
      data: JSON.parse(first.payload),
    });
    // Ten by default.
    expect(((await json(await get("/v1/events", a.sk))) as { data: unknown[] }).data).toHaveLength(10);
  });

  it("filters by exact type, across pages", async () => {
    const res = await get("/v1/events?type=payment.succeeded&limit=3", a.sk);
    const page = (await json(res)) as { data: Array<{ id: string; type: string }>; has_more: boolean };
    const succeeded = mine.filter((e) => e.eventType === "payment.succeeded");
    expect(page.data.map((e) => e.id)).toEqual(succeeded.slice(0, 3).map((e) => eventIdOf(e.idempotencyKey)));
    expect(page.has_more).toBe(true);
    const rest = (await json(
      await get(`/v1/events?type=payment.succeeded&limit=3&starting_after=${page.data[2]?.id}`, a.sk),
    )) as typeof page;
    expect(rest.data.map((e) => e.id)).toEqual([eventIdOf(succeeded[3]?.idempotencyKey as string)]);
    expect(rest.has_more).toBe(false);
    const none = (await json(await get("/v1/events?type=subscription.charged", a.sk))) as typeof page;
    expect(none).toMatchObject({ data: [], has_more: false });
  });

  it("reads one event by id; another merchant's, or an unknown id, is 404", async () => {
    const id = eventIdOf((mine[4] as WebhookEvent).idempotencyKey);
    const res = await get(`/v1/events/${id}`, a.sk);
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ id, object: "event", type: mine[4]?.eventType });
    for (const [path, key] of [
      [`/v1/events/${id}`, b.sk],
      [`/v1/events/evt_${"0".repeat(32)}`, a.sk],
      ["/v1/events/not-an-event", a.sk],
    ] as const) {
      const other = await get(path, key);
      expect([path, other.status]).toEqual([path, 404]);
      expect(await json(other)).toEqual({ error: "no such event" });
    }
    // Merchant b's list never shows a's events, and a's event is no cursor for b.
    const theirs = (await json(await get("/v1/events?limit=100", b.sk))) as { data: Array<{ id: string }> };
    expect(theirs.data).toHaveLength(1);
    const cursor = await get(`/v1/events?starting_after=${id}`, b.sk);
    expect(cursor.status).toBe(400);
  });

  it("answers 400 with the JSON error for bad query parameters", async () => {
    for (const query of [
      "limit=0",
      "limit=101",
      "limit=ten",
      "limit=2.5",
      "starting_after=evt_nope",
      `starting_after=evt_${"0".repeat(32)}`,
      "type=Payment%20Succeeded",
      "type=",
      "ending_before=evt_x",
    ]) {
      const res = await get(`/v1/events?${query}`, a.sk);
      expect([query, res.status]).toEqual([query, 400]);
      expect(await json(res)).toEqual({ error: expect.any(String) });
    }
    expect((await json(await get("/v1/events?limit=0", a.sk))).error).toContain("limit");
    expect((await json(await get(`/v1/events?starting_after=evt_${"0".repeat(32)}`, a.sk))).error).toBe(
      "starting_after names no event of this merchant in the last 30 days",
    );
  });

  it("answers 401 with WWW-Authenticate for no key, a malformed, revoked or publishable key", async () => {
    const m = await createMerchant();
    const rolled = await fetch(`${service.url}/v1/keys/roll`, {
      method: "POST",
      headers: { authorization: `Bearer ${m.sk}` },
    });
    expect(rolled.status).toBe(200);
    const { key: fresh } = (await json(rolled)) as { key: string };
    const id = eventIdOf((mine[0] as WebhookEvent).idempotencyKey);
    for (const path of ["/v1/events", `/v1/events/${id}`, "/v1/events?limit=0"]) {
      await expect401(await get(path));
      await expect401(await get(path, "not_a_key"));
      await expect401(await get(path, `sk_test_${"x".repeat(10)}`));
      await expect401(await get(path, m.sk)); // revoked by the roll
      await expect401(await get(path, a.pk));
    }
    expect((await get("/v1/events", fresh)).status).toBe(200);
  });
});
