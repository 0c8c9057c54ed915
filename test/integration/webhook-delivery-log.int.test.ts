import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { createGateway } from "../../src/gateway/app.ts";
import { createGuards } from "../../src/gateway/auth.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";
import { type CassandraClient, connectCassandra } from "../../src/store/cassandra.ts";
import type { KeyByHash } from "../../src/store/merchants.ts";
import {
  ledgerBucket,
  type WebhookDeliveries,
  webhookDeliveries,
} from "../../src/store/webhook-deliveries.ts";
import { memoryService, testConfig } from "../support/memory-gateway.ts";

// The delivery log and manual redelivery over the real ledger in Cassandra: the routes read what the
// webhooks worker writes, and a redelivery is a lightweight transaction from `failed` only. The
// merchants' keys are two fixed records (their own tests are test/e2e/off-chain/merchants.e2e.test.ts).

let cassandra: CassandraClient;
let ledger: WebhookDeliveries;
let app: FastifyInstance;
const merchantA = `mer_${randomUUID()}`;
const merchantB = `mer_${randomUUID()}`;
const keyA = issueKey("secret", "test");
const keyB = issueKey("secret", "test");
const rows: KeyByHash[] = [
  { ...keyA.issued, merchantId: merchantA, createdAt: 1, revokedAt: null },
  { ...keyB.issued, merchantId: merchantB, createdAt: 1, revokedAt: null },
];
const as = (key: { key: string }) => ({ authorization: `Bearer ${key.key}` });

beforeAll(async () => {
  const stack = await ensureStack({ root: ".local" });
  cassandra = await connectCassandra({ ...stack.cassandra, keyspace: "settlement" }, { migrate: true });
  ledger = webhookDeliveries(cassandra);
  const service = memoryService();
  app = await createGateway({
    config: testConfig({ MERCHANT_MODE: "development", RATE_LIMIT_BURST: "1000" }),
    commands: service.commands,
    sessions: service.sessions,
    live: service.live,
    health: service.health,
    merchants: {
      admin: {} as never, // the merchant routes are not called here
      guards: createGuards({
        keys: { keyByHash: async (h) => rows.find((r) => r.hash === h) ?? null },
        mode: "test",
      }),
    },
    webhookDeliveries: ledger,
  });
});
afterAll(async () => {
  await app?.close();
  await cassandra?.shutdown();
});

/** A delivery of merchant A in the ledger, taken to `failed` as the worker does after its last attempt. */
async function failedDelivery(): Promise<string> {
  const key = `${randomUUID()}:payment.detected`;
  const now = Date.now();
  const bucket = ledgerBucket(0, now);
  const [row] = await ledger.enqueueAll(
    [
      {
        bucket,
        idempotencyKey: key,
        merchantId: merchantA,
        eventType: "payment.detected",
        sessionId: null,
        payload: "{}",
        eventCreatedAt: now,
        firstQueuedAt: now,
        nextRetryAt: now,
      },
    ],
    now,
  );
  if (!row) throw new Error("enqueue refused a new key");
  const claim = { bucket, idempotencyKey: key, attempts: 0, nextRetryAt: now };
  expect(await ledger.claim(claim, now + 60_000)).toBe(true);
  await ledger.logAttempt({
    idempotencyKey: key,
    attempt: 1,
    startedAt: now,
    url: "https://merchant.test/hook",
    address: "203.0.113.7",
    statusCode: 500,
    durationMs: 12,
    error: null,
  });
  const settled = await ledger.settle(
    { ...claim, nextRetryAt: now + 60_000 },
    { state: "failed", attempts: 5, nextRetryAt: null, lastStatus: 500, lastError: "HTTP 500" },
  );
  expect(settled).toBe(true);
  return key;
}

describe("GET /v1/webhook_deliveries and redeliver", () => {
  it("lists the merchant's deliveries with their attempts, and no other merchant's", async () => {
    const key = await failedDelivery();
    const mine = await app.inject({ method: "GET", url: "/v1/webhook_deliveries", headers: as(keyA) });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().data.find((d: { id: string }) => d.id === key)).toMatchObject({
      id: key,
      event_type: "payment.detected",
      state: "failed",
      attempts: 5,
      last_status: 500,
      attempt_log: [{ attempt: 1, status_code: 500, duration_ms: 12, address: "203.0.113.7" }],
    });
    const theirs = await app.inject({ method: "GET", url: "/v1/webhook_deliveries", headers: as(keyB) });
    expect(theirs.json().data.map((d: { id: string }) => d.id)).not.toContain(key);
    const one = await app.inject({
      method: "GET",
      url: `/v1/webhook_deliveries/${encodeURIComponent(key)}`,
      headers: as(keyB),
    });
    expect(one.statusCode).toBe(404);
    expect((await app.inject({ method: "GET", url: "/v1/webhook_deliveries" })).statusCode).toBe(401);
  });

  it("redelivers a failed delivery once: pending and due with the same key; again is 409; another merchant's is 404", async () => {
    const key = await failedDelivery();
    const url = `/v1/webhook_deliveries/${encodeURIComponent(key)}/redeliver`;
    expect((await app.inject({ method: "POST", url, headers: as(keyB) })).statusCode).toBe(404);
    const [first, second] = await Promise.all([
      app.inject({ method: "POST", url, headers: as(keyA) }),
      app.inject({ method: "POST", url, headers: as(keyA) }),
    ]);
    // Concurrent redeliveries: one wins the lightweight transaction, the other finds it no longer failed.
    expect([first.statusCode, second.statusCode].sort()).toEqual([200, 409]);
    const ok = first.statusCode === 200 ? first : second;
    expect(ok.json()).toMatchObject({ id: key, state: "pending", attempts: 0, last_status: null });
    const row = await ledger.get(key);
    expect(row).toMatchObject({ state: "pending", attempts: 0 });
    expect(row?.nextRetryAt ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(Date.now());
    expect((await ledger.due(Date.now(), 10_000)).map((r) => r.idempotencyKey)).toContain(key);
  });
});
