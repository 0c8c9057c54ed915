import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { createApiClient } from "../../src/client/api-client.ts";
import { makeBurner, newBurner, payCheckout } from "../../src/client/index.ts";
import { verifyWebhook } from "../../src/client/merchant/verify-webhook.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { type Ctx, fund, setUpChains } from "../support/delegate.ts";
import { makeTestCa } from "../support/test-ca.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../support/webhook-receiver.ts";

// The whole service (`src/cli.ts start`: every role in one process) at LOG_LEVEL=info, as a child
// whose stdout and stderr are kept line by line. A merchant checkout runs through it with every
// secret in use: the operator secret creates the merchant, its sk_ drives the merchant routes, the
// payer library streams the session with pk_ and cs_ in the query string, and the webhooks role
// signs deliveries with the endpoint's whsec_. Then no log line may hold any of them.

const T = 240_000;
const OPERATOR_SECRET = `operator-${randomUUID()}-${randomUUID()}`;
const ca = makeTestCa(["localhost"]);
/** A key's or secret's prefix where a token starts (`cs_` inside `docs_` or `metrics_` is no secret). */
const SECRET_PREFIX = /(?<![A-Za-z0-9])(cs_|sk_|whsec_)/;

const lines: string[] = [];
let service: Child;
let url = "";
let A: Ctx;
let B: Ctx;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver(ca);
  // First, as startTestService does: it deploys what the chains lack (a changed delegate) and
  // writes the stack file the child reads its chains from.
  await ensureStack({ root: ".local" });
  const ctx = await setUpChains();
  [A, B] = [ctx("source"), ctx("destination")];

  service = await startChild("service", ["src/cli.ts", "start"], {
    env: {
      LOG_LEVEL: "info",
      PORT: "0",
      MERCHANT_MODE: "development",
      WEBHOOK_ALLOW_INSECURE: "true",
      OPERATOR_SECRET,
      RATE_LIMIT_BURST: "1000",
      INDEXER_POLL_MS: "250",
      WEBHOOK_POLL_MS: "100",
      NODE_EXTRA_CA_CERTS: ca.caFile,
    },
    ready: /^gateway\s+listening on (http:\/\/\S+)/,
    timeoutMs: T,
    onLine: (line) => lines.push(line),
  });
  url = service.ready;
}, T);
afterAll(async () => {
  await service?.stop();
  await receiver?.close();
}, T);

async function api(path: string, init: { method?: string; key?: string; body?: unknown } = {}) {
  const res = await fetch(`${url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

describe("secrets never reach a log", () => {
  it(
    "a full checkout at LOG_LEVEL=info: no line holds cs_, sk_, whsec_ or the operator secret",
    async () => {
      const created = await api("/v1/operator/merchants", {
        key: OPERATOR_SECRET,
        body: { name: "Log Shop", email: `logs-${randomUUID()}@merchant.test` },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const sk: string = created.body.secret_key;
      const pk: string = created.body.publishable_key;
      const pinned = await api("/v1/destinations", {
        method: "PUT",
        key: sk,
        body: {
          source_chain_id: A.chain.chainId,
          dest_address: makeBurner().address,
          dest_chain_id: B.chain.chainId,
        },
      });
      expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
      const hook = await api("/v1/webhook_endpoints", {
        method: "PUT",
        key: sk,
        body: { url: `https://localhost:${receiver.port}/hook` },
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(200);
      const whsec: string = hook.body.secret;
      const s = await api("/v1/payment_sessions", { key: sk, body: { amount: "10000000" } });
      expect(s.status, JSON.stringify(s.body)).toBe(200);
      const cs: string = s.body.client_secret;
      expect([sk, pk, cs, whsec].map((x) => x.slice(0, 6))).toEqual(["sk_tes", "pk_tes", "cs_tes", "whsec_"]);

      // The payer library registers with pk_ + cs_ in headers and follows the session's event
      // stream with both in the query string, to the end of the settlement.
      const client = createApiClient({ baseUrl: url, checkout: { publishableKey: pk, clientSecret: cs } });
      const burner = await newBurner(A.chain);
      const { settled } = await payCheckout(client, {
        id: s.body.id,
        burner,
        usdc: { [A.chain.chainId]: A.chain.usdc },
        onRegistered: () => fund(A, burner.address, A.chain.usdc, 10_000_000n),
        detectionTimeout: 60_000,
        settlementTimeout: 90_000,
      });
      expect(settled).toMatchObject({ status: "swept", outcome: "succeeded" });
      const key = `${s.body.id}:payment.succeeded`;
      const got = await receiver.arrived(key);
      // The whsec_ was in use: the webhooks role signed with it.
      await expect(
        verifyWebhook({ payload: got.body, header: got.signature, secret: whsec }),
      ).resolves.toMatchObject({ session_id: s.body.id });
      expect((await api("/v1/merchant", { key: sk })).status).toBe(200);

      await service.stop(); // every line written and read
      const requests = lines.filter((l) => l.includes('"msg":"incoming request"'));
      // Not vacuous: the info-level request lines are there, the stream's with its route and session.
      // The merchant's five calls, register, the stream (once at least), commit: eight at the least.
      expect(requests.length).toBeGreaterThanOrEqual(8);
      const stream = requests.map((l) => JSON.parse(l).req).filter((r) => r.route === "/sessions/:id/events");
      expect(stream.length).toBeGreaterThan(0);
      expect(stream[0]).toMatchObject({ method: "GET", session_id: s.body.id });
      expect(lines.some((l) => l.includes("webhook attempt 1: delivered"))).toBe(true);

      const leaks = lines.filter(
        (l) => SECRET_PREFIX.test(l) || [OPERATOR_SECRET, sk, pk, cs, whsec].some((x) => l.includes(x)),
      );
      expect(leaks).toEqual([]);
    },
    T,
  );
});
