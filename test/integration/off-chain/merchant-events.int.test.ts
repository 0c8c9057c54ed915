// The event list on the real stack: WebhookEvent records on webhook.events (as the sessions' outbox
// writes them), the webhooks role in this process, and the merchant_events tables it writes, read
// back page by page. The merchants have no endpoint: their deliveries are skipped, their events listed.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPlainProducer, type PlainProducer } from "../../../src/kafka/at-least-once.ts";
import type { WebhookEvent } from "../../../src/records/webhook-events.ts";
import {
  EVENT_RETENTION_MS,
  eventIdOf,
  type MerchantEventRow,
  type MerchantEvents,
  merchantEvents,
} from "../../../src/store/merchant-events.ts";
import { webhookDeliveries } from "../../../src/store/webhook-deliveries.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { startTestService, type TestService } from "../../support/service.ts";

const T = 120_000;
let service: TestService;
let producer: PlainProducer;
let events: MerchantEvents;

beforeAll(async () => {
  service = await startTestService({ roles: ["webhooks"] });
  producer = createPlainProducer(service.kafka);
  await producer.connect();
  events = merchantEvents(service.cassandra);
}, T);
afterAll(async () => {
  await producer?.disconnect();
  await service?.stop();
}, T);

const TYPES = ["payment.detected", "payment.processing", "payment.succeeded"] as const;

/** A session's webhook event as the outbox writes it, created `ageMs` ago. */
function sessionEvent(
  merchantId: string,
  type: string,
  ageMs: number,
  sessionId = randomUUID(),
): WebhookEvent {
  return {
    idempotencyKey: `${sessionId}:${type}`,
    merchantId,
    eventType: type,
    sessionId,
    payload: JSON.stringify({ session_id: sessionId, event_type: type, amount: "1000000" }),
    createdAt: Date.now() - ageMs,
  };
}

const publish = (records: WebhookEvent[]) =>
  producer.send(
    TOPIC.webhookEvents,
    records.map((e) => ({ key: e.merchantId, value: codecs.webhookEvent.encode(e) })),
  );

/** Every event of a merchant, walked page by page as GET /v1/events does. */
async function walk(merchantId: string, limit: number, type?: string): Promise<MerchantEventRow[][]> {
  const pages: MerchantEventRow[][] = [];
  let after: MerchantEventRow | undefined;
  for (;;) {
    const page = await events.page(merchantId, { limit, after, type });
    if (page.length === 0) return pages;
    pages.push(page);
    after = page.at(-1);
  }
}

describe("the webhooks worker records every event for the event list", () => {
  it(
    "lists a merchant's events newest first, page by page, each once, and no other merchant's",
    async () => {
      const a = `mer_${randomUUID()}`;
      const b = `mer_${randomUUID()}`;
      // Twelve events a second apart, published oldest last, and one of another merchant.
      const mine = Array.from({ length: 12 }, (_, i) => sessionEvent(a, TYPES[i % 3] as string, i * 1000));
      const theirs = sessionEvent(b, "payment.detected", 0);
      await publish([...mine, theirs]);
      // The same records again (a producer retry or a replay): still one event each.
      await publish(mine.slice(0, 3));

      await waitFor(
        "a's twelve events",
        async () => ((await events.page(a, { limit: 100 })).length === 12 ? true : undefined),
        T,
      );
      const pages = await walk(a, 5);
      expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
      const listed = pages.flat();
      expect(listed.map((e) => e.idempotencyKey)).toEqual(mine.map((e) => e.idempotencyKey));
      expect(listed[0]).toEqual({
        id: eventIdOf(mine[0]?.idempotencyKey as string),
        merchantId: a,
        type: "payment.detected",
        createdAt: mine[0]?.createdAt,
        idempotencyKey: mine[0]?.idempotencyKey,
        sessionId: mine[0]?.sessionId,
        payload: mine[0]?.payload,
      });
      expect(await events.get(listed[0]?.id as string)).toEqual(listed[0]);

      const succeeded = (await walk(a, 2, "payment.succeeded")).flat();
      expect(succeeded.map((e) => e.idempotencyKey)).toEqual(
        mine.filter((e) => e.eventType === "payment.succeeded").map((e) => e.idempotencyKey),
      );
      expect((await events.page(b, { limit: 10 })).map((e) => e.idempotencyKey)).toEqual([
        theirs.idempotencyKey,
      ]);
    },
    T,
  );

  it(
    "the same key queued again later is the first event, unmoved; one past 30 days is not listed",
    async () => {
      const merchant = `mer_${randomUUID()}`;
      const first = sessionEvent(merchant, "payment.detected", 5000);
      // The same status change reached again after a reorg: same key, later time, one delivery.
      const again = { ...first, createdAt: Date.now() };
      const old = sessionEvent(merchant, "payment.succeeded", EVENT_RETENTION_MS + 60_000);
      const last = sessionEvent(merchant, "payment.processing", 0);
      // One merchant, one partition: the worker sees them in this order.
      await publish([first, again, old, last]);

      const id = eventIdOf(last.idempotencyKey);
      await waitFor("the last event", async () => (await events.get(id)) ?? undefined, T);
      const listed = await events.page(merchant, { limit: 10 });
      expect(listed.map((e) => [e.idempotencyKey, e.createdAt])).toEqual([
        [last.idempotencyKey, last.createdAt],
        [first.idempotencyKey, first.createdAt],
      ]);
      expect(await events.get(eventIdOf(old.idempotencyKey))).toBeNull();
      // The ledger has it all the same (the worker handles a merchant's records in order, so it is
      // done with the old one): the event list is beside the ledger, not in its way.
      const ledger = webhookDeliveries(service.cassandra);
      expect(await ledger.get(old.idempotencyKey)).toMatchObject({ merchantId: merchant });
    },
    T,
  );
});
