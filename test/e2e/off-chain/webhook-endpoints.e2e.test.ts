import { randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../../src/client/merchant/verify-webhook.ts";
import { createPlainProducer } from "../../../src/kafka/at-least-once.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { webhookEndpoints } from "../../../src/store/webhook-endpoints.ts";
import { tableEndpointDirectory } from "../../../src/webhooks/endpoints.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { json } from "../../support/http.ts";
import { createMerchant as operatorCreates } from "../../support/operator.ts";
import { startTestService, type TestService } from "../../support/service.ts";

// PUT/GET/DELETE /v1/webhook_endpoints on the real stack: the gateway sends the merchant actor a
// command, the projector writes webhook_endpoints, and the webhooks worker delivers with it.
const OPERATOR_SECRET = `operator-${"w".repeat(40)}`;
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "gateway", "webhooks"],
    env: {
      MERCHANT_MODE: "development",
      WEBHOOK_ALLOW_INSECURE: "true",
      OPERATOR_SECRET,
      RATE_LIMIT_BURST: "1000",
    },
  });
});
afterAll(async () => {
  await service?.stop();
});

const call = (path: string, init: { method?: string; key?: string; body?: unknown } = {}) =>
  fetch(`${service.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });

async function createMerchant(): Promise<{ id: string; sk: string }> {
  const m = await operatorCreates(service.url, OPERATOR_SECRET, "Hooks");
  return { id: m.id, sk: m.secretKey };
}

describe("webhook endpoints (MERCHANT_MODE=development, WEBHOOK_ALLOW_INSECURE)", () => {
  it("PUT answers the whsec_ once, GET never shows it, the worker's directory sees it; DELETE removes it", async () => {
    const { id, sk } = await createMerchant();
    const none = await call("/v1/webhook_endpoints", { key: sk });
    expect([none.status, await none.json()]).toEqual([200, null]);

    const url = "http://localhost:9/hooks";
    const put = await call("/v1/webhook_endpoints", { method: "PUT", key: sk, body: { url } });
    expect(put.status).toBe(200);
    const created = await json(put);
    expect(created).toMatchObject({ url, id: expect.stringMatching(/^we_[0-9a-f]{32}$/) });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const got = await call("/v1/webhook_endpoints", { key: sk });
    expect(got.status).toBe(200);
    expect(await json(got)).toEqual({ id: created.id, url, created_at: created.created_at });

    // The projection wrote the row the webhooks worker reads, with the secret the PUT answered.
    const table = webhookEndpoints(service.cassandra);
    expect(await table.get(id)).toMatchObject({ endpointId: created.id, url, secret: created.secret });
    expect(await tableEndpointDirectory(table).endpointFor(id)).toEqual({ url, secret: created.secret });

    // Every PUT rotates the secret and replaces the endpoint.
    const again = await json(await call("/v1/webhook_endpoints", { method: "PUT", key: sk, body: { url } }));
    expect(again.secret).not.toBe(created.secret);
    expect((await table.get(id))?.secret).toBe(again.secret);

    // No record carries a secret: merchant.events is kept forever and read outside the service.
    const journal: string[] = [];
    // merchant.events has the session topics' partition count (topics/catalogue.ts).
    const partitions = service.config.SESSION_PARTITIONS;
    await readTopic(service.kafka, {
      topic: TOPIC.merchantEvents,
      from: new Map(Array.from({ length: partitions }, (_, p) => [p, 0n] as const)),
      onBatch: (records) => {
        for (const r of records)
          if (r.key?.toString() === id && r.value) journal.push(r.value.toString("latin1"));
      },
    });
    expect(journal.length).toBeGreaterThanOrEqual(3); // created, keys, two endpoint sets
    for (const secret of [created.secret, again.secret])
      expect(journal.some((text) => text.includes(secret))).toBe(false);

    const del = await call("/v1/webhook_endpoints", { method: "DELETE", key: sk });
    expect(del.status).toBe(204);
    const gone = await call("/v1/webhook_endpoints", { key: sk });
    expect([gone.status, await gone.json()]).toEqual([200, null]);
    expect(await table.get(id)).toBeNull();
    expect((await call("/v1/webhook_endpoints", { method: "DELETE", key: sk })).status).toBe(404);
  }, 60_000);

  it("refuses a URL in a blocked range or an http URL other than localhost with 400 and why", async () => {
    const { id, sk } = await createMerchant();
    for (const [url, why] of [
      ["https://10.0.0.1/x", "private"],
      ["https://169.254.169.254/latest", "link-local"],
      ["https://[::ffff:127.0.0.1]/x", "loopback"],
      ["https://2130706433/x", "loopback"],
      ["http://example.com/x", "must be https"],
      ["not a url", "does not parse"],
    ]) {
      const res = await call("/v1/webhook_endpoints", { method: "PUT", key: sk, body: { url } });
      expect([url, res.status]).toEqual([url, 400]);
      expect((await json(res)).error).toContain(why);
    }
    expect(await webhookEndpoints(service.cassandra).get(id)).toBeNull();
  }, 60_000);

  it("answers 401 with WWW-Authenticate without a key, and with a publishable key", async () => {
    const pkRes = await call("/v1/operator/merchants", {
      method: "POST",
      key: OPERATOR_SECRET,
      body: { name: "Hooks", email: `hooks-${randomUUID()}@merchant.test` },
    });
    const { publishable_key: pk } = (await json(pkRes)) as { publishable_key: string };
    for (const key of [undefined, pk]) {
      for (const method of ["GET", "PUT", "DELETE"]) {
        const body = method === "PUT" ? { url: "https://example.com/x" } : undefined;
        const res = await call("/v1/webhook_endpoints", { method, ...(key ? { key } : {}), body });
        expect([method, res.status]).toEqual([method, 401]);
        expect(res.headers.get("www-authenticate")).toBe("Bearer");
      }
    }
  }, 60_000);

  it("an event for the merchant reaches the URL set by PUT, signed with the secret the PUT answered", async () => {
    const received: Array<{ body: string; headers: IncomingHttpHeaders }> = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        received.push({ body, headers: req.headers });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const producer = createPlainProducer(service.kafka);
    await producer.connect();
    try {
      const { id, sk } = await createMerchant();
      const port = (server.address() as AddressInfo).port;
      const put = await call("/v1/webhook_endpoints", {
        method: "PUT",
        key: sk,
        body: { url: `http://localhost:${port}/hooks` },
      });
      const { secret } = (await json(put)) as { secret: string };
      const sessionId = randomUUID();
      // What a merchant's session writes to webhook.events (docs/SETTLEMENT.md, "Webhook events").
      const payload = `{"session_id":"${sessionId}","event_type":"payment.detected","amount":"1000000","settled_amount":null,"overpaid_amount":null}`;
      const event = {
        idempotencyKey: `${sessionId}:payment.detected`,
        merchantId: id,
        eventType: "payment.detected",
        sessionId,
        payload,
        createdAt: Date.now(),
      };
      await producer.send(TOPIC.webhookEvents, [{ key: id, value: codecs.webhookEvent.encode(event) }]);
      const got = await waitFor("the delivery", () => received[0], 60_000);
      expect(got.body).toBe(payload);
      expect(got.headers["idempotency-key"]).toBe(event.idempotencyKey);
      const header = got.headers["service-signature"] as string;
      await expect(verifyWebhook({ payload: got.body, header, secret })).resolves.toMatchObject({
        session_id: sessionId,
      });
    } finally {
      await producer.disconnect();
      await new Promise((r) => server.close(r));
    }
  }, 90_000);
});
