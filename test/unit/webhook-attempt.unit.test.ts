import { afterEach, describe, expect, it } from "vitest";
import type { AttemptRow, ClaimBasis, WebhookDeliveries } from "../../src/store/webhook-deliveries.ts";
import type { Resolver } from "../../src/webhooks/address-guard.ts";
import { attemptDelivery } from "../../src/webhooks/attempt.ts";
import { type LocalServer, serve } from "../support/local-http.ts";

// One attempt's time bounds with the name server replaced: a look-up that never answers ends the
// attempt at the connect bound, and a slow look-up leaves the POST only what is left of the total.
// The ledger is a table in memory (its real form is the integration test's).

const servers: LocalServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function memoryLedger() {
  const attempts: AttemptRow[] = [];
  const settled: unknown[] = [];
  const ledger = {
    claim: async () => true,
    settle: async (_lease: ClaimBasis, outcome: unknown) => {
      settled.push(outcome);
      return true;
    },
    logAttempt: async (a: AttemptRow) => {
      attempts.push(a);
    },
  } as unknown as WebhookDeliveries;
  return { ledger, attempts, settled };
}

const delivery = { idempotencyKey: "ses_1:payment.detected", merchantId: "mer_1", payload: "{}" };
const basis: ClaimBasis = {
  bucket: "0@1970-01-01T00:00:00.000Z",
  idempotencyKey: delivery.idempotencyKey,
  attempts: 0,
  nextRetryAt: 0,
};
const DEV = { allowInsecureLocalhost: true };

async function attempt(url: string, resolve: Resolver, timeouts: { connectMs: number; totalMs: number }) {
  const { ledger, attempts } = memoryLedger();
  const t0 = performance.now();
  const outcome = await attemptDelivery(delivery, basis, {
    ledger,
    endpoints: { endpointFor: async () => ({ url, secret: "whsec_test" }) },
    policy: DEV,
    timeouts,
    retryBaseMs: 1000,
    leaseMarginMs: 30_000,
    resolve,
    log: () => {},
  });
  return { outcome, attempt: attempts[0], ms: performance.now() - t0 };
}

describe("a webhook attempt's DNS look-up", () => {
  it("that never answers ends the attempt at the connect bound, as a failed attempt to retry", async () => {
    const hangs: Resolver = () => new Promise(() => {});
    const {
      outcome,
      attempt: row,
      ms,
    } = await attempt("https://hooks.example.com/x", hangs, {
      connectMs: 150,
      totalMs: 5000,
    });
    expect(ms).toBeGreaterThanOrEqual(140);
    expect(ms).toBeLessThan(1000);
    expect(outcome).toMatchObject({ kind: "done", state: "pending" });
    expect(row).toMatchObject({ statusCode: null, address: null });
    expect(row?.error).toMatch(/did not resolve in time/);
  });

  it("that never answers is cut by the total bound when it is the shorter", async () => {
    const hangs: Resolver = () => new Promise(() => {});
    const { attempt: row, ms } = await attempt("https://hooks.example.com/x", hangs, {
      connectMs: 5000,
      totalMs: 150,
    });
    expect(ms).toBeLessThan(1000);
    expect(row?.error).toMatch(/did not resolve in time/);
  });

  it("that is slow leaves the POST only what is left of the total", async () => {
    // A server that takes the request and never answers: only the total bound can end the attempt.
    const silent = await serve(() => {});
    servers.push(silent);
    const port = new URL(silent.url).port;
    const slow: Resolver = () =>
      new Promise((resolve) => setTimeout(() => resolve([{ address: "127.0.0.1", family: 4 }]), 300));
    const { attempt: row, ms } = await attempt(`http://localhost:${port}/hook`, slow, {
      connectMs: 1000,
      totalMs: 600,
    });
    expect(row).toMatchObject({ statusCode: null, address: "127.0.0.1" });
    expect(row?.error).toMatch(/no complete answer within/);
    // Look-up (300) plus what was left (300): the whole attempt stays within its 600 ms, not 900.
    expect(ms).toBeGreaterThanOrEqual(580);
    expect(ms).toBeLessThan(850);
  });
});
