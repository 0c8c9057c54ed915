import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiClient } from "../../src/client/api-client.ts";
import {
  getSession,
  makeBurner,
  newBurner,
  payCheckout,
  type Session,
  signIntent,
} from "../../src/client/index.ts";
import { verifyWebhook } from "../../src/client/merchant/verify-webhook.ts";
import { waitFor } from "../support/actor-host.ts";
import { type Child, startChild } from "../support/child-process.ts";
import { type Ctx, fund, setUpChains, tokenBalance } from "../support/delegate.ts";
import { type JsonRequest, requestJson } from "../support/http.ts";
import { createMerchant } from "../support/operator.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { makeTestCa } from "../support/test-ca.ts";
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  type WebhookReceiver,
} from "../support/webhook-receiver.ts";

// A merchant checkout on the real stack: the merchant's server creates the session with its sk_,
// pins a destination and an app fee; the widget registers a burner and commits with pk_ + cs_; the
// payer pays on the local chain; the executor sweeps and bridges; the webhooks role (a child process
// trusting a test CA) delivers payment.detected, .processing, .succeeded to a real HTTPS receiver.

const T = 180_000;
const OPERATOR_SECRET = `operator-${"c".repeat(40)}`;
const DEV = { MERCHANT_MODE: "development", WEBHOOK_ALLOW_INSECURE: "true" };
const ca = makeTestCa(["localhost"]);

let service: TestService;
let webhooks: Child;
let A: Ctx;
let B: Ctx;
let receiver: WebhookReceiver;
let received: ReceivedWebhook[] = [];
let receiverPort = 0;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: { ...DEV, OPERATOR_SECRET, RATE_LIMIT_BURST: "1000", INDEXER_POLL_MS: "250" },
  });
  webhooks = await startChild("webhooks", ["src/cli.ts", "webhooks"], {
    env: { ...DEV, LOG_LEVEL: "warn", WEBHOOK_POLL_MS: "100", NODE_EXTRA_CA_CERTS: ca.caFile },
    ready: /^webhooks\s+(.*)$/,
    timeoutMs: T,
  });
  const ctx = await setUpChains();
  [A, B] = [ctx("source"), ctx("destination")];
  receiver = await startWebhookReceiver(ca);
  receiverPort = receiver.port;
  received = receiver.received;
}, T);
afterAll(async () => {
  await webhooks?.stop();
  await receiver?.close();
  await service?.stop();
}, T);

interface Merchant {
  id: string;
  sk: string;
  pk: string;
}

const api = (path: string, init: JsonRequest = {}) => requestJson(service.url, path, init);

/** A merchant with a destination pinned for chain A (a test pinning its own replaces it), or none. */
async function newMerchant({ pinned = true } = {}): Promise<Merchant> {
  const made = await createMerchant(service.url, OPERATOR_SECRET, "Checkout Shop");
  const m = { id: made.id, sk: made.secretKey, pk: made.publishableKey };
  if (pinned) await pin(m);
  return m;
}

async function pin(m: Merchant) {
  const r = await api("/v1/destinations", {
    method: "PUT",
    key: m.sk,
    body: {
      source_chain_id: A.chain.chainId,
      dest_address: makeBurner().address.toLowerCase(),
      dest_chain_id: B.chain.chainId,
    },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function paymentSession(m: Merchant, amount = "10000000") {
  const r = await api("/v1/payment_sessions", { key: m.sk, body: { amount } });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; client_secret: string; amount: string; status: string };
}

const checkoutHeaders = (pk: string, cs: string) => ({
  authorization: `Bearer ${pk}`,
  "x-client-secret": cs,
});

async function register(
  sessionId: string,
  headers: Record<string, string>,
  burner?: Awaited<ReturnType<typeof newBurner>>,
) {
  const b = burner ?? (await newBurner(A.chain));
  return api(`/sessions/${sessionId}/register`, {
    headers,
    body: { burner_address: b.address, eip7702_auth: b.eip7702Auth },
  });
}

describe("checkout sessions (MERCHANT_MODE=development)", () => {
  it(
    "before the merchant pinned a destination: 409 naming it, no session; after PUT /v1/destinations: 200",
    async () => {
      const m = await newMerchant({ pinned: false });
      const early = await api("/v1/payment_sessions", { key: m.sk, body: { amount: "1000000" } });
      expect([early.status, early.body]).toEqual([
        409,
        { error: "the merchant cannot be paid yet: no destination is pinned (PUT /v1/destinations)" },
      ]);
      await pin(m);
      const created = await paymentSession(m, "1000000");
      expect(created).toMatchObject({ status: "pending", amount: "1000000" });
    },
    T,
  );

  it(
    "create: a pending session with no burner, the amount, a cs_ shown once; GET is the owner's only",
    async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const created = await paymentSession(m, "12500000");
      expect(created).toMatchObject({ object: "payment_session", status: "pending", amount: "12500000" });
      expect(created.client_secret).toMatch(/^cs_test_/);
      const read = await api(`/v1/payment_sessions/${created.id}`, { key: m.sk });
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty("client_secret");
      expect(read.body.session).toMatchObject({
        burner_address: null,
        merchant_id: m.id,
        expected_amount: "12500000",
      });
      expect((await api(`/v1/payment_sessions/${created.id}`, { key: other.sk })).status).toBe(404);
      // Every call is a new session, as the interface says.
      expect((await paymentSession(m, "12500000")).id).not.toBe(created.id);
      for (const amount of ["0", "1.5", "-3", "1e6", "abc", 10]) {
        const bad = await api("/v1/payment_sessions", { key: m.sk, body: { amount } });
        expect(bad.status, String(amount)).toBe(400);
      }
    },
    T,
  );

  it(
    "Idempotency-Key: the same key and body answer the first answer (client secret included), concurrently too; another body is 409",
    async () => {
      const m = await newMerchant();
      const key = `order-${randomUUID()}`;
      const post = (amount: string, k = key) =>
        api("/v1/payment_sessions", { key: m.sk, body: { amount }, headers: { "idempotency-key": k } });
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => post("5000000")));
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
      const first = answers[0]?.body;
      for (const a of answers)
        expect([a.body.id, a.body.client_secret]).toEqual([first.id, first.client_secret]);
      const later = await post("5000000");
      expect(later.body).toEqual(first);
      const other = await post("6000000");
      expect(other.status).toBe(409);
      expect(other.body.error).toMatch(/Idempotency-Key/);
      // The secret answered works: the widget can register with it.
      expect((await register(first.id, checkoutHeaders(m.pk, first.client_secret))).status).toBe(200);
      // Another merchant's key of the same text is its own.
      const n = await newMerchant();
      const theirs = await api("/v1/payment_sessions", {
        key: n.sk,
        body: { amount: "5000000" },
        headers: { "idempotency-key": key },
      });
      expect(theirs.status).toBe(200);
      expect(theirs.body.id).not.toBe(first.id);
    },
    T,
  );

  it(
    "register's auth matrix: 401 (with WWW-Authenticate) / 404 / 403 / 200, then 409 for a second burner",
    async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      const s = await paymentSession(m);
      const cases: Array<[string, Record<string, string>, number]> = [
        ["no key", {}, 401],
        ["malformed key", checkoutHeaders("pk_nonsense", s.client_secret), 401],
        ["secret key instead of publishable", checkoutHeaders(m.sk, s.client_secret), 401],
        ["no client secret", { authorization: `Bearer ${m.pk}` }, 401],
        ["another merchant's pk", checkoutHeaders(other.pk, s.client_secret), 404],
        [
          "another session's client secret",
          checkoutHeaders(m.pk, (await paymentSession(m)).client_secret),
          403,
        ],
      ];
      for (const [what, headers, status] of cases) {
        const r = await register(s.id, headers);
        expect(r.status, what).toBe(status);
        if (status === 401) expect(r.headers.get("www-authenticate"), what).toBe("Bearer");
      }
      const ok = await register(s.id, checkoutHeaders(m.pk, s.client_secret));
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body).toEqual({ id: s.id, status: "pending" });
      const again = await register(s.id, checkoutHeaders(m.pk, s.client_secret));
      expect(again.status).toBe(409);
      // The SSE stream of a checkout session takes the same two as query parameters.
      const open = await fetch(`${service.url}/sessions/${s.id}/events`);
      expect(open.status).toBe(401);
      await open.body?.cancel();
      const stream = await fetch(
        `${service.url}/sessions/${s.id}/events?pk=${encodeURIComponent(m.pk)}&client_secret=${encodeURIComponent(s.client_secret)}`,
      );
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
      await stream.body?.cancel();
    },
    T,
  );

  it(
    "two concurrent registrations: exactly one 200 and one 409, and the session keeps the winner's burner",
    async () => {
      const m = await newMerchant();
      for (let round = 0; round < 3; round++) {
        const s = await paymentSession(m);
        const burners = await Promise.all([newBurner(A.chain), newBurner(A.chain)]);
        const results = await Promise.all(
          burners.map((b) => register(s.id, checkoutHeaders(m.pk, s.client_secret), b)),
        );
        expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
        const winner = burners[results.findIndex((r) => r.status === 200)];
        const read = await api(`/v1/payment_sessions/${s.id}`, { key: m.sk });
        expect(read.body.session.burner_address).toBe(winner?.address.toLowerCase());
      }
    },
    T,
  );

  it(
    "full checkout: pinned destination and app fee, widget registers and commits with pk + cs, webhooks arrive signed, in order",
    async () => {
      const m = await newMerchant();
      const dest = makeBurner().address.toLowerCase();
      const feeSink = makeBurner().address.toLowerCase();
      const pinned = await api("/v1/destinations", {
        method: "PUT",
        key: m.sk,
        body: { source_chain_id: A.chain.chainId, dest_address: dest, dest_chain_id: B.chain.chainId },
      });
      expect(pinned.status, JSON.stringify(pinned.body)).toBe(200);
      expect(pinned.body.data).toEqual([
        { source_chain_id: A.chain.chainId, dest_address: dest, dest_chain_id: B.chain.chainId },
      ]);
      const fee = await api("/v1/app_fee", {
        method: "PUT",
        key: m.sk,
        body: { app_fee_bps: 100, app_fee_recipient: feeSink },
      });
      expect(fee.status).toBe(200);
      const hook = await api("/v1/webhook_endpoints", {
        method: "PUT",
        key: m.sk,
        body: { url: `https://localhost:${receiverPort}/hook` },
      });
      expect(hook.status, JSON.stringify(hook.body)).toBe(200);
      const secret = hook.body.secret as string;

      const s = await paymentSession(m, "10000000");
      const headers = checkoutHeaders(m.pk, s.client_secret);
      const burner = await newBurner(A.chain);
      expect((await register(s.id, headers, burner)).status).toBe(200);
      await fund(A, burner.address, A.chain.usdc, 10_000_000n);

      const client = createApiClient({ baseUrl: service.url });
      let detected: Session | null = null;
      await waitFor(
        "the deposit to be detected",
        async () => {
          detected = await getSession(client, { id: s.id });
          return detected.status === "detected" ? true : undefined;
        },
        60_000,
      );
      const session = detected as unknown as Session;
      expect(session).toMatchObject({ dest_address: dest, dest_chain_id: B.chain.chainId, app_fee_bps: 100 });
      // The widget accepts the merchant's 1% app fee (the payer library signs none by default).
      const signed = await signIntent({ signer: burner.account, session, quote: null, maxAppFeeBps: 100 });
      const commitBody = ({ intent, chainId, signature }: typeof signed) => ({
        burner: burner.address.toLowerCase(),
        eip7702_auth: burner.eip7702Auth,
        intent,
        intent_sigs: { [String(chainId)]: signature },
      });
      // Without the checkout guard: 401; signed for another destination: the session refuses it
      // against the merchant's pin, and nothing changes.
      expect((await api(`/sessions/${s.id}/commit`, { body: commitBody(signed) })).status).toBe(401);
      const elsewhere = await signIntent({
        signer: burner.account,
        session: { ...session, dest_address: feeSink },
        quote: null,
        maxAppFeeBps: 100,
      });
      const mismatch = await api(`/sessions/${s.id}/commit`, { headers, body: commitBody(elsewhere) });
      expect(mismatch.status).toBe(409);
      expect(mismatch.body.error).toMatch(/pinned/);

      const committed = await api(`/sessions/${s.id}/commit`, { headers, body: commitBody(signed) });
      expect(committed.status, JSON.stringify(committed.body)).toBe(200);
      expect(committed.body).toMatchObject({ app_fee_bps: 100, app_fee_recipient: feeSink });

      let swept: Session | null = null;
      await waitFor(
        "the session to be swept",
        async () => {
          swept = await getSession(client, { id: s.id });
          return swept.status === "swept" || swept.status === "failed" ? true : undefined;
        },
        120_000,
      );
      expect(swept).toMatchObject({ outcome: "succeeded", settled_amount: expect.any(String) });
      expect(await tokenBalance(B, dest as `0x${string}`)).toBe(
        BigInt((swept as unknown as Session).settled_amount ?? -1),
      );
      expect(await tokenBalance(A, feeSink as `0x${string}`)).toBe(100_000n); // 1% of 10 USDC

      const wanted = ["payment.detected", "payment.processing", "payment.succeeded"].map(
        (e) => `${s.id}:${e}`,
      );
      await waitFor(
        "the three webhooks",
        async () => (wanted.every((k) => received.some((r) => r.key === k)) ? true : undefined),
        60_000,
      );
      const mine = received.filter((r) => r.key.startsWith(`${s.id}:`));
      expect(mine.map((r) => r.key)).toEqual(wanted);
      for (const r of mine) {
        const body = await verifyWebhook({ payload: r.body, header: r.signature, secret });
        expect(body).toMatchObject({ session_id: s.id, amount: "10000000" });
      }
    },
    T,
  );
  it(
    "through the payer library's payCheckout: 12 USDC on a 10 USDC session ends overpaid, and payment.overpaid names the 2 USDC over",
    async () => {
      const m = await newMerchant();
      const dest = makeBurner().address.toLowerCase();
      await api("/v1/destinations", {
        method: "PUT",
        key: m.sk,
        body: { source_chain_id: A.chain.chainId, dest_address: dest, dest_chain_id: A.chain.chainId },
      });
      const hook = await api("/v1/webhook_endpoints", {
        method: "PUT",
        key: m.sk,
        body: { url: `https://localhost:${receiverPort}/over` },
      });
      const s = await paymentSession(m, "10000000");
      const client = createApiClient({
        baseUrl: service.url,
        checkout: { publishableKey: m.pk, clientSecret: s.client_secret },
      });
      const burner = await newBurner(A.chain);
      const { settled } = await payCheckout(client, {
        id: s.id,
        burner,
        usdc: { [A.chain.chainId]: A.chain.usdc },
        onRegistered: () => fund(A, burner.address, A.chain.usdc, 12_000_000n),
        detectionTimeout: 60_000,
        settlementTimeout: 90_000,
      });
      expect(settled).toMatchObject({ status: "swept", outcome: "overpaid", expected_amount: "10000000" });
      const key = `${s.id}:payment.overpaid`;
      const got = await receiver.arrived(key);
      const body = await verifyWebhook({
        payload: got?.body ?? "",
        header: got?.signature ?? "",
        secret: hook.body.secret,
      });
      expect(body).toMatchObject({
        event_type: "payment.overpaid",
        amount: "12000000",
        overpaid_amount: "2000000",
      });
    },
    T,
  );
});

describe("a P2P request from a pk-tagged widget", () => {
  it(
    "is the merchant's: its webhooks fire, yet it stays open (no client secret); a bad pk is 401, checkout is refused",
    async () => {
      const m = await newMerchant();
      const hook = await api("/v1/webhook_endpoints", {
        method: "PUT",
        key: m.sk,
        body: { url: `https://localhost:${receiverPort}/p2p` },
      });
      expect(hook.status).toBe(200);
      const burner = await newBurner(A.chain);
      const body = {
        burner_address: burner.address,
        eip7702_auth: burner.eip7702Auth,
        destination_address: makeBurner().address,
        destination_chain: B.chain.chainId,
      };
      const bad = await api("/sessions", { key: "pk_test_nonsense", body });
      expect(bad.status).toBe(401);
      expect(bad.headers.get("www-authenticate")).toBe("Bearer");
      expect((await api("/sessions", { key: m.sk, body })).status).toBe(401); // an sk_ in a browser
      expect((await api("/sessions", { key: m.pk, body: { ...body, flow: "checkout" } })).status).toBe(400);
      const created = await api("/sessions", { key: m.pk, body });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const open = await api(`/sessions/${created.body.id}`);
      expect(open.body).toMatchObject({ merchant_id: m.id, flow: "p2p_request" });
      const stream = await fetch(`${service.url}/sessions/${created.body.id}/events`);
      expect(stream.status).toBe(200);
      await stream.body?.cancel();

      await fund(A, burner.address, A.chain.usdc, 1_000_000n);
      const key = `${created.body.id}:payment.detected`;
      const got = await receiver.arrived(key);
      await expect(
        verifyWebhook({ payload: got?.body ?? "", header: got?.signature ?? "", secret: hook.body.secret }),
      ).resolves.toMatchObject({ session_id: created.body.id, amount: "1000000" });
      // Without the header the same kind of request is anonymous.
      const other = await newBurner(A.chain);
      const anonymous = await api("/sessions", {
        body: { ...body, burner_address: other.address, eip7702_auth: other.eip7702Auth },
      });
      expect(anonymous.status).toBe(200);
      expect((await api(`/sessions/${anonymous.body.id}`)).body.merchant_id).toBeNull();
    },
    T,
  );
});
