// The webhooks role on the real stack: WebhookEvent records on webhook.events (as the sessions' outbox
// writes them), merchant endpoints in webhook_endpoints, the role as a child process (so a test can
// kill -9 it), and local receivers. Retries run at a 200 ms base instead of 1 s.
import { randomUUID } from "node:crypto";
import { createServer as createHttpServer, type IncomingHttpHeaders, type RequestListener } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { createServer as createTcpServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhook } from "../../../src/client/merchant/verify-webhook.ts";
import { createPlainProducer, type PlainProducer } from "../../../src/kafka/at-least-once.ts";
import type { WebhookEvent } from "../../../src/records/webhook-events.ts";
import {
  ledgerBucket,
  type NewDelivery,
  type WebhookDeliveries,
  webhookDeliveries,
} from "../../../src/store/webhook-deliveries.ts";
import { webhookEndpoints } from "../../../src/store/webhook-endpoints.ts";
import { RECORDING_FACTOR } from "../../../src/webhooks/queue.ts";
import { newWebhookSecret } from "../../../src/webhooks/signing.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { waitFor } from "../../support/actor-host.ts";
import { type Child, startChild } from "../../support/child-process.ts";
import { codecs } from "../../support/codecs.ts";
import { startTestService, type TestService } from "../../support/service.ts";
import { makeTestCa } from "../../support/test-ca.ts";

const T = 120_000;
const BASE_MS = 200;
const DEV = { MERCHANT_MODE: "development", WEBHOOK_ALLOW_INSECURE: "true" };

let service: TestService;
let producer: PlainProducer;
let ledger: WebhookDeliveries;
let worker: Child | undefined;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  service = await startTestService({ roles: [] });
  producer = createPlainProducer(service.kafka);
  await producer.connect();
  ledger = webhookDeliveries(service.cassandra);
}, T);
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});
afterAll(async () => {
  await worker?.stop();
  await producer?.disconnect();
  await service?.stop();
}, T);

/** The webhooks role as a child process; one at a time, so every record goes to the worker under test. */
async function startWorker(env: Record<string, string>): Promise<Child> {
  await worker?.stop();
  worker = await startChild("webhooks", ["src/cli.ts", "webhooks"], {
    env: { LOG_LEVEL: "warn", WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_POLL_MS: "100", ...env },
    ready: /^webhooks\s+(.*)$/,
    timeoutMs: T,
  });
  return worker;
}

interface Received {
  at: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The TLS server name the client sent (SNI), over HTTPS. */
  servername: string | null;
}

/**
 * A merchant receiver on 127.0.0.1 answering the n-th request (1-based) with `status(n, ofKey)`
 * (`ofKey`: the n of its Idempotency-Key); over HTTPS with `tls` (a certificate and its key).
 */
async function receiver(status: (n: number, ofKey: number) => number, tls?: { cert: string; key: string }) {
  const received: Received[] = [];
  let connections = 0;
  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const servername = (req.socket as { servername?: string | false }).servername || null;
      received.push({
        at: Date.now(),
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        servername,
      });
      const key = req.headers["idempotency-key"];
      const ofKey = received.filter((x) => x.headers["idempotency-key"] === key).length;
      res.writeHead(status(received.length, ofKey)).end();
    });
  };
  const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  server.on("connection", () => {
    connections++;
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { port, received, connections: () => connections };
}

/** A merchant with its endpoint set, and a session event for it. */
async function merchant(url: string) {
  const merchantId = `m_${randomUUID()}`;
  const secret = newWebhookSecret();
  await webhookEndpoints(service.cassandra).put({
    merchantId,
    endpointId: `we_${randomUUID()}`,
    url,
    secret,
  });
  return { merchantId, secret };
}

function event(merchantId: string, eventType = "payment.detected"): WebhookEvent {
  const sessionId = randomUUID();
  return {
    idempotencyKey: `${sessionId}:${eventType}`,
    merchantId,
    eventType,
    sessionId,
    // Spacing and key order as the session writes it; the receiver must get these bytes exactly.
    payload: `{"session_id":"${sessionId}","event_type":"${eventType}","amount":"25000000","settled_amount":null,"overpaid_amount":null}`,
    createdAt: Date.now(),
  };
}

const publish = (e: WebhookEvent) =>
  producer.send(TOPIC.webhookEvents, [{ key: e.merchantId, value: codecs.webhookEvent.encode(e) }]);
/** Records in one produce request, so the worker reads them as one batch. */
const publishAll = (es: WebhookEvent[]) =>
  producer.send(
    TOPIC.webhookEvents,
    es.map((e) => ({ key: e.merchantId, value: codecs.webhookEvent.encode(e) })),
  );

const settled = (key: string) =>
  waitFor(
    `delivery ${key} to end`,
    async () => {
      const row = await ledger.get(key);
      return row && row.state !== "pending" ? row : undefined;
    },
    T,
  );

const gaps = (r: Received[]) => r.slice(1).map((x, i) => x.at - (r[i] as Received).at);

describe("in development mode with http://localhost allowed", () => {
  beforeAll(() => startWorker(DEV), T);

  it(
    "delivers an event once, signed so that verifyWebhook accepts it, with the Idempotency-Key and JSON type",
    async () => {
      const r = await receiver(() => 200);
      const m = await merchant(`http://localhost:${r.port}/hooks?src=test`);
      const e = event(m.merchantId);
      await publish(e);

      const row = await settled(e.idempotencyKey);
      expect(row).toMatchObject({ state: "delivered", attempts: 1, lastStatus: 200 });
      expect(r.received).toHaveLength(1);
      const [got] = r.received as [Received];
      expect(got.body).toBe(e.payload);
      expect(got.headers["idempotency-key"]).toBe(e.idempotencyKey);
      expect(got.headers["content-type"]).toBe("application/json");
      const header = got.headers["service-signature"] as string;
      expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
      await expect(verifyWebhook({ payload: got.body, header, secret: m.secret })).resolves.toMatchObject({
        event_type: "payment.detected",
        session_id: e.sessionId,
      });
      await expect(
        verifyWebhook({ payload: got.body, header, secret: newWebhookSecret() }),
      ).rejects.toMatchObject({
        code: "verification_failed",
      });
      const [attempt] = await ledger.attempts(e.idempotencyKey);
      expect(attempt).toMatchObject({ attempt: 1, statusCode: 200, address: "127.0.0.1", error: null });
      expect(attempt?.durationMs).toBeGreaterThanOrEqual(0);
      // The merchant's delivery log finds it by merchant id.
      expect((await ledger.forMerchant(m.merchantId, 10)).map((d) => d.idempotencyKey)).toEqual([
        e.idempotencyKey,
      ]);
    },
    T,
  );

  it(
    "retries a 500 at 1, 2, 4, 8 base intervals and marks it failed after the fifth attempt",
    async () => {
      const r = await receiver(() => 500);
      const m = await merchant(`http://localhost:${r.port}/`);
      const e = event(m.merchantId);
      await publish(e);

      const row = await settled(e.idempotencyKey);
      expect(row).toMatchObject({ state: "failed", attempts: 5, lastStatus: 500, nextRetryAt: null });
      expect(r.received).toHaveLength(5);
      // Each wait is at least its schedule, and late by no more than the scheduler's slack.
      gaps(r.received).forEach((gap, i) => {
        const due = BASE_MS * 2 ** i;
        expect(gap).toBeGreaterThanOrEqual(due - 20);
        expect(gap).toBeLessThan(due + 600);
      });
      expect(new Set(r.received.map((x) => x.headers["idempotency-key"]))).toEqual(
        new Set([e.idempotencyKey]),
      );
      const attempts = await ledger.attempts(e.idempotencyKey);
      expect(attempts.map((a) => [a.attempt, a.statusCode, a.error])).toEqual(
        [1, 2, 3, 4, 5].map((n) => [n, 500, "HTTP 500"]),
      );
      // Nothing more once failed.
      await new Promise((resolve) => setTimeout(resolve, BASE_MS * 20));
      expect(r.received).toHaveLength(5);
    },
    T,
  );

  it(
    "answers 500 three times then 200: four attempts and one success",
    async () => {
      const r = await receiver((n) => (n <= 3 ? 500 : 200));
      const m = await merchant(`http://localhost:${r.port}/`);
      const e = event(m.merchantId, "payment.succeeded");
      await publish(e);
      expect(await settled(e.idempotencyKey)).toMatchObject({
        state: "delivered",
        attempts: 4,
        lastStatus: 200,
      });
      expect(r.received).toHaveLength(4);
      gaps(r.received).forEach((gap, i) => {
        expect(gap).toBeGreaterThanOrEqual(BASE_MS * 2 ** i - 20);
      });
    },
    T,
  );

  it(
    "delivers a record published twice once",
    async () => {
      const r = await receiver(() => 200);
      const m = await merchant(`http://localhost:${r.port}/`);
      const e = event(m.merchantId);
      await publish(e);
      await publish({ ...e, createdAt: e.createdAt + 1 });
      // A later event of the same merchant proves the second copy was read before we look.
      const later = event(m.merchantId, "payment.processing");
      await publish(later);
      await settled(later.idempotencyKey);
      expect(await settled(e.idempotencyKey)).toMatchObject({ state: "delivered", attempts: 1 });
      expect(r.received.map((x) => x.headers["idempotency-key"]).sort()).toEqual(
        [e.idempotencyKey, later.idempotencyKey].sort(),
      );
    },
    T,
  );

  it(
    "makes no second delivery for a re-delivered batch, and delivers the new keys in it once",
    async () => {
      const r = await receiver(() => 200);
      const m = await merchant(`http://localhost:${r.port}/`);
      const first = Array.from({ length: 20 }, () => event(m.merchantId));
      await publishAll(first);
      for (const e of first) await settled(e.idempotencyKey);
      // The same records again (as a consumer re-reads them after a crash), with five new ones.
      const fresh = Array.from({ length: 5 }, () => event(m.merchantId, "payment.succeeded"));
      await publishAll([...first, ...fresh]);
      for (const e of fresh) expect(await settled(e.idempotencyKey)).toMatchObject({ state: "delivered" });
      const keys = r.received.map((x) => String(x.headers["idempotency-key"]));
      expect(keys.sort()).toEqual([...first, ...fresh].map((e) => e.idempotencyKey).sort());
    },
    T,
  );

  it(
    "pays one lightweight transaction for a bucket's inserts, and when one key of them is there already enqueues the others exactly once",
    async () => {
      // The ledger as the worker uses it, from this process; due in an hour, so no scan takes the rows.
      const now = Date.now();
      const bucket = ledgerBucket(0, now);
      const entry = (): NewDelivery => {
        const e = event(`m_${randomUUID()}`);
        return { ...e, bucket, eventCreatedAt: now, firstQueuedAt: now, nextRetryAt: now + 3_600_000 };
      };
      const [a, b, c, d, e, f] = Array.from({ length: 6 }, entry) as [NewDelivery, ...NewDelivery[]];
      const rounds = () => ledger.paxosRounds();

      let before = rounds();
      expect((await ledger.enqueueAll([d, e, f] as NewDelivery[], now)).map((x) => x.idempotencyKey)).toEqual(
        [d, e, f].map((x) => x?.idempotencyKey),
      );
      expect(rounds() - before).toBe(1);

      expect(await ledger.enqueueAll([b] as NewDelivery[], now)).toHaveLength(1);
      before = rounds();
      // b is there: the batch of three does not apply, and each is tried alone.
      const added = await ledger.enqueueAll([a, b, c] as NewDelivery[], now);
      expect(added.map((x) => x.idempotencyKey)).toEqual([a.idempotencyKey, c?.idempotencyKey]);
      expect(rounds() - before).toBe(4);
      expect(await ledger.enqueueAll([a, b, c] as NewDelivery[], now)).toEqual([]);
      for (const x of [a, b, c]) {
        expect(await ledger.get((x as NewDelivery).idempotencyKey)).toMatchObject({
          bucket,
          state: "pending",
          attempts: 0,
        });
      }
    },
    T,
  );

  it(
    "refuses an IP-literal loopback URL even in development (only the name localhost is allowed)",
    async () => {
      const r = await receiver(() => 200);
      const m = await merchant(`https://127.0.0.1:${r.port}/`);
      const e = event(m.merchantId);
      await publish(e);
      expect(await settled(e.idempotencyKey)).toMatchObject({
        state: "failed",
        attempts: 5,
        lastStatus: null,
      });
      expect(r.connections()).toBe(0);
      const attempts = await ledger.attempts(e.idempotencyKey);
      expect(attempts[0]).toMatchObject({ address: null, statusCode: null });
      expect(attempts[0]?.error).toMatch(/127\.0\.0\.1: loopback/);
    },
    T,
  );

  it(
    "ends a delivery for a merchant with no endpoint as skipped, with no attempt",
    async () => {
      const e = event(`m_${randomUUID()}`);
      await publish(e);
      expect(await settled(e.idempotencyKey)).toMatchObject({
        state: "skipped",
        attempts: 0,
        lastError: "the merchant has no webhook endpoint",
      });
      expect(await ledger.attempts(e.idempotencyKey)).toEqual([]);
    },
    T,
  );
});

describe("in production mode", () => {
  beforeAll(() => startWorker({ MERCHANT_MODE: "production", WEBHOOK_ALLOW_INSECURE: "false" }), T);

  it(
    "refuses endpoints that resolve to or name a blocked address, and never connects",
    async () => {
      // A bare TCP listener: any connection at all is counted, before TLS or HTTP.
      let connections = 0;
      const tcp = createTcpServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => tcp.listen(0, "127.0.0.1", resolve));
      closers.push(() => new Promise((resolve) => tcp.close(() => resolve())));
      const { port } = tcp.address() as AddressInfo;

      const cases = [
        [`https://localhost:${port}/`, /resolves to 127\.0\.0\.1: loopback/],
        [`https://[::ffff:127.0.0.1]:${port}/`, /loopback/],
        [`https://2130706433:${port}/`, /127\.0\.0\.1: loopback/],
        [`https://10.0.0.1:${port}/`, /private/],
        [`https://169.254.169.254/latest/meta-data/`, /link-local/],
        [`http://localhost:${port}/`, /must be https/],
      ] as const;
      const events = await Promise.all(
        cases.map(async ([url]) => {
          const e = event((await merchant(url)).merchantId);
          await publish(e);
          return e;
        }),
      );
      for (const [i, e] of events.entries()) {
        const row = await settled(e.idempotencyKey);
        expect(row).toMatchObject({ state: "failed", attempts: 5, lastStatus: null });
        expect(row.lastError).toMatch(cases[i]?.[1] as RegExp);
        const attempts = await ledger.attempts(e.idempotencyKey);
        expect(attempts).toHaveLength(5);
        for (const a of attempts) expect(a).toMatchObject({ address: null, statusCode: null });
      }
      expect(connections).toBe(0);
    },
    T,
  );
});

describe("over HTTPS, trusting a test CA (NODE_EXTRA_CA_CERTS)", () => {
  const trusted = makeTestCa(["localhost"]);
  const stranger = makeTestCa(["localhost"]);
  beforeAll(() => startWorker({ ...DEV, NODE_EXTRA_CA_CERTS: trusted.caFile }), T);

  it(
    "delivers to https://localhost: connected to 127.0.0.1, the certificate checked against the name sent as SNI",
    async () => {
      const r = await receiver(() => 200, trusted);
      const m = await merchant(`https://localhost:${r.port}/hook`);
      const e = event(m.merchantId, "payment.processing");
      await publish(e);
      expect(await settled(e.idempotencyKey)).toMatchObject({ state: "delivered", attempts: 1 });
      const [got] = r.received as [Received];
      expect(got.servername).toBe("localhost");
      expect(got.headers.host).toBe(`localhost:${r.port}`);
      await expect(
        verifyWebhook({
          payload: got.body,
          header: got.headers["service-signature"] as string,
          secret: m.secret,
        }),
      ).resolves.toMatchObject({ event_type: "payment.processing" });
    },
    T,
  );

  it(
    "fails every attempt at a server whose certificate no trusted CA signed, and sends it nothing",
    async () => {
      const r = await receiver(() => 200, stranger);
      const m = await merchant(`https://localhost:${r.port}/hook`);
      const e = event(m.merchantId);
      await publish(e);
      const row = await settled(e.idempotencyKey);
      expect(row).toMatchObject({ state: "failed", attempts: 5, lastStatus: null });
      expect(row.lastError).toMatch(/certificate/);
      expect(r.received).toHaveLength(0);
      expect(r.connections()).toBeGreaterThan(0);
    },
    T,
  );
  it(
    "never follows a redirect: a 302 to another (blocked or not) address is a failed attempt, and its target hears nothing",
    async () => {
      const target = await receiver(() => 200, trusted);
      const redirector = createHttpsServer(trusted, (_req, res) => {
        res.writeHead(302, { location: `https://localhost:${target.port}/stolen` }).end();
      });
      await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
      closers.push(() => new Promise((resolve) => redirector.close(() => resolve())));
      const m = await merchant(`https://localhost:${(redirector.address() as AddressInfo).port}/hook`);
      const e = event(m.merchantId);
      await publish(e);
      expect(await settled(e.idempotencyKey)).toMatchObject({
        state: "failed",
        attempts: 5,
        lastStatus: 302,
      });
      expect(target.received).toHaveLength(0);
      expect(target.connections()).toBe(0);
    },
    T,
  );
});

describe("a worker killed mid-retry", () => {
  it(
    "is resumed from the ledger by the next one: every attempt once, then delivered",
    async () => {
      // A long first wait, so the kill lands between the first and the second attempt.
      await startWorker({ ...DEV, WEBHOOK_RETRY_BASE_MS: "4000" });
      const r = await receiver((n) => (n <= 2 ? 500 : 200));
      const m = await merchant(`http://localhost:${r.port}/`);
      const e = event(m.merchantId, "payment.failed");
      await publish(e);
      await waitFor("the first attempt in the ledger", async () => {
        const row = await ledger.get(e.idempotencyKey);
        return row?.attempts === 1 ? row : undefined;
      });
      process.kill((worker as Child).pid, "SIGKILL");
      worker = undefined;
      expect(r.received).toHaveLength(1);

      await startWorker(DEV);
      expect(await settled(e.idempotencyKey)).toMatchObject({ state: "delivered", attempts: 3 });
      expect(r.received).toHaveLength(3);
      // The second attempt waited the schedule the first worker wrote (4 s), not the new base.
      expect(gaps(r.received)[0]).toBeGreaterThanOrEqual(4000 - 20);
      const attempts = await ledger.attempts(e.idempotencyKey);
      expect(attempts.map((a) => [a.attempt, a.statusCode])).toEqual([
        [1, 500],
        [2, 500],
        [3, 200],
      ]);
    },
    T,
  );
});

describe("a worker killed mid-queue", () => {
  // The dead worker's claimed deliveries wait for their leases (attempt bound + margin): short here.
  // Eight attempts at once, so the 60 deliveries are more than what can be in flight at the kill.
  const SHORT_LEASE = {
    ...DEV,
    WEBHOOK_TIMEOUT_MS: "3000",
    WEBHOOK_LEASE_MARGIN_MS: "2000",
    WEBHOOK_CONCURRENCY: "8",
  };
  it(
    "loses nothing and delivers nothing twice but what was in flight: every key reaches the receiver, every ledger row ends delivered",
    async () => {
      await startWorker(SHORT_LEASE);
      // A receiver that answers after 100 ms, so the kill lands with deliveries queued and in flight.
      const seen: string[] = [];
      const server = createHttpServer((req, res) => {
        req.resume();
        req.on("end", () => {
          seen.push(String(req.headers["idempotency-key"]));
          setTimeout(() => res.writeHead(200).end(), 100);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      closers.push(
        () =>
          new Promise((resolve) => {
            server.closeAllConnections();
            server.close(() => resolve());
          }),
      );
      const m = await merchant(`http://localhost:${(server.address() as AddressInfo).port}/`);
      const events = Array.from({ length: 60 }, () => event(m.merchantId));
      await producer.send(
        TOPIC.webhookEvents,
        events.map((e) => ({ key: e.merchantId, value: codecs.webhookEvent.encode(e) })),
      );
      await waitFor("a quarter of the deliveries", async () => (seen.length >= 15 ? true : undefined));
      process.kill((worker as Child).pid, "SIGKILL");
      worker = undefined;
      const atKill = seen.length;
      expect(atKill).toBeLessThan(events.length);

      await startWorker(SHORT_LEASE);
      for (const e of events) expect(await settled(e.idempotencyKey)).toMatchObject({ state: "delivered" });
      const keys = new Set(seen);
      expect(events.filter((e) => !keys.has(e.idempotencyKey))).toEqual([]);
      // At most what was in flight when the worker died (sending, or writing its outcome) is sent
      // again (the receiver dedupes by key).
      expect(seen.length - keys.size).toBeLessThanOrEqual(8 * RECORDING_FACTOR);
    },
    T,
  );
});

describe("an upgraded ledger, and two workers side by side", () => {
  // Rows of the table before migration 0021, as the earlier worker left them: one pending and due,
  // one delivered. Written before the workers start, so they find the old table in use.
  const legacy = {
    pending: `${randomUUID()}:payment.detected`,
    delivered: `${randomUUID()}:payment.succeeded`,
  };
  let r: Awaited<ReturnType<typeof receiver>>;
  let m: Awaited<ReturnType<typeof merchant>>;
  let second: Child | undefined;
  beforeAll(async () => {
    r = await receiver(() => 200);
    m = await merchant(`http://localhost:${r.port}/`);
    const insert = (key: string, state: string, nextRetryAt: Date | null) =>
      service.cassandra.execute(
        `INSERT INTO webhook_deliveries (idempotency_key, merchant_id, event_type, session_id, payload, event_created_at, state, attempts, next_retry_at, created_at, updated_at)
         VALUES (?, ?, ?, null, '{}', ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
        [
          key,
          m.merchantId,
          key.split(":")[1],
          new Date(),
          state,
          state === "delivered" ? 1 : 0,
          nextRetryAt,
          new Date(),
          new Date(),
        ],
        { prepare: true },
      );
    await insert(legacy.pending, "pending", new Date(Date.now() - 1000));
    await insert(legacy.delivered, "delivered", null);
    await startWorker(DEV);
    second = await startChild("webhooks-2", ["src/cli.ts", "webhooks"], {
      env: { LOG_LEVEL: "warn", WEBHOOK_RETRY_BASE_MS: String(BASE_MS), WEBHOOK_POLL_MS: "100", ...DEV },
      ready: /^webhooks\s+(.*)$/,
      timeoutMs: T,
    });
  }, T);
  afterAll(async () => {
    await second?.stop();
  }, T);

  it(
    "delivers the old table's pending row, lists its rows, and queues none of its keys again",
    async () => {
      expect(await settled(legacy.pending)).toMatchObject({ bucket: null, state: "delivered", attempts: 1 });
      expect(r.received.map((x) => x.headers["idempotency-key"])).toEqual([legacy.pending]);
      // The delivered key's record again (first queued before the workers started), then a new event.
      const again: WebhookEvent = {
        ...event(m.merchantId),
        idempotencyKey: legacy.delivered,
        createdAt: Date.now() - 60_000,
      };
      const later = event(m.merchantId, "payment.processing");
      await publishAll([again, later]);
      expect(await settled(later.idempotencyKey)).toMatchObject({ state: "delivered" });
      expect(r.received.map((x) => x.headers["idempotency-key"])).toEqual([
        legacy.pending,
        later.idempotencyKey,
      ]);
      expect(await ledger.get(legacy.delivered)).toMatchObject({ bucket: null, state: "delivered" });
      expect((await ledger.forMerchant(m.merchantId, 10)).map((d) => d.idempotencyKey).sort()).toEqual(
        [legacy.pending, legacy.delivered, later.idempotencyKey].sort(),
      );
    },
    T,
  );

  it(
    "never both attempt one delivery: each attempt is made once, by one of them",
    async () => {
      // Every key's first request fails: its retry is due in both workers' scans (every 100 ms),
      // and the two race to claim it.
      const { port, received } = await receiver((_, ofKey) => (ofKey === 1 ? 500 : 200));
      // Eight merchants, so both workers' partitions have records.
      const merchants = await Promise.all(
        Array.from({ length: 8 }, () => merchant(`http://localhost:${port}/`)),
      );
      const events = merchants.flatMap((x) => Array.from({ length: 10 }, () => event(x.merchantId)));
      await publishAll(events);
      for (const e of events) {
        expect(await settled(e.idempotencyKey)).toMatchObject({ state: "delivered", attempts: 2 });
      }
      // Two requests per key, attempts 1 and 2 once each: a claim taken twice would show a third.
      const requests = new Map<string, number>();
      for (const x of received) {
        const key = String(x.headers["idempotency-key"]);
        requests.set(key, (requests.get(key) ?? 0) + 1);
      }
      expect([...requests.values()].every((n) => n === 2)).toBe(true);
      expect(requests.size).toBe(events.length);
      for (const e of events.slice(0, 10)) {
        expect((await ledger.attempts(e.idempotencyKey)).map((a) => [a.attempt, a.statusCode])).toEqual([
          [1, 500],
          [2, 200],
        ]);
      }
    },
    T,
  );
});
