import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newBurner } from "../../src/client/burner.ts";
import { createMerchant } from "../support/operator.ts";
import { stackChains } from "../support/payer.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { registerUnchargedSubscription } from "../support/subscription-payer.ts";

// The interface's authentication table, route by route, on the real gateway, merchant actors and
// projection: every guarded route against no key, a malformed key, a revoked key, the wrong key type,
// another merchant's key and the right key. 401 always carries WWW-Authenticate: Bearer; a resource
// of another merchant is 404 (existence is not probed); a valid key that does not own the resource
// (the right pk_ with another session's cs_) is 403.

const T = 120_000;
const OPERATOR_SECRET = `operator-${"a".repeat(40)}`;
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "gateway"],
    env: {
      MERCHANT_MODE: "development",
      OPERATOR_SECRET,
      WEBHOOK_ALLOW_INSECURE: "true",
      RATE_LIMIT_BURST: "5000",
    },
  });
}, T);
afterAll(async () => {
  await service?.stop();
}, T);

type Headers = Record<string, string>;
async function call(method: string, path: string, headers: Headers = {}, body?: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const status = res.status;
  const challenge = res.headers.get("www-authenticate");
  await res.body?.cancel();
  return { status, challenge };
}
const bearer = (key: string): Headers => ({ authorization: `Bearer ${key}` });

interface Merchant {
  id: string;
  sk: string;
  pk: string;
}
async function newMerchant(): Promise<Merchant> {
  const b = await createMerchant(service.url, OPERATOR_SECRET, "Matrix");
  // A destination pinned, so it can create checkout sessions (none: 409 merchant_not_ready).
  const chain = stackChains()[0]?.chainId ?? 31337;
  const pin = { source_chain_id: chain, dest_address: `0x${"d".repeat(40)}`, dest_chain_id: chain };
  expect((await call("PUT", "/v1/destinations", bearer(b.secretKey), pin)).status).toBe(200);
  return { id: b.id, sk: b.secretKey, pk: b.publishableKey };
}
async function roll(m: Merchant, type: "secret" | "publishable"): Promise<string> {
  const res = await fetch(`${service.url}/v1/keys/roll`, {
    method: "POST",
    headers: { ...bearer(m.sk), "content-type": "application/json" },
    body: JSON.stringify({ type }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { key: string }).key;
}
async function paymentSession(m: Merchant) {
  const res = await fetch(`${service.url}/v1/payment_sessions`, {
    method: "POST",
    headers: { ...bearer(m.sk), "content-type": "application/json" },
    body: JSON.stringify({ amount: "1000000" }),
  });
  return (await res.json()) as { id: string; client_secret: string };
}

describe("the authentication table, route by route (MERCHANT_MODE=development)", () => {
  it(
    "secret-key routes: 401 + WWW-Authenticate for no, malformed, revoked and wrong-type keys; another merchant's resource 404; the right key 2xx",
    async () => {
      const me = await newMerchant();
      const other = await newMerchant();
      // A revoked secret key: the one rolled away (the roll answers the key that replaces it).
      const revoked = me.sk;
      me.sk = await roll(me, "secret");
      const chain = stackChains()[0]?.chainId ?? 31337;
      const mine = await paymentSession(me);
      const subscription = await registerUnchargedSubscription(service.url, me.sk);
      // Both have an endpoint: another merchant's key reads its own.
      for (const m of [me, other])
        await call("PUT", "/v1/webhook_endpoints", bearer(m.sk), { url: "http://localhost:9/hooks" });

      // owned: the path names one of the merchant's resources, so another merchant's key finds nothing.
      const routes: Array<{ method: string; path: string; body?: unknown; ok: number; owned?: boolean }> = [
        { method: "GET", path: "/v1/merchant", ok: 200 },
        { method: "GET", path: "/v1/webhook_endpoints", ok: 200 },
        { method: "PUT", path: "/v1/webhook_endpoints", body: { url: "http://localhost:9/hooks" }, ok: 200 },
        { method: "GET", path: "/v1/webhook_deliveries", ok: 200 },
        { method: "GET", path: "/v1/events", ok: 200 },
        { method: "POST", path: "/v1/payment_sessions", body: { amount: "1000000" }, ok: 200 },
        { method: "GET", path: `/v1/payment_sessions/${mine.id}`, ok: 200, owned: true },
        {
          method: "PUT",
          path: "/v1/destinations",
          body: { source_chain_id: chain, dest_address: `0x${"d".repeat(40)}`, dest_chain_id: chain },
          ok: 200,
        },
        { method: "GET", path: "/v1/destinations", ok: 200 },
        {
          method: "PUT",
          path: "/v1/app_fee",
          body: { app_fee_bps: 0, app_fee_recipient: `0x${"0".repeat(40)}` },
          ok: 200,
        },
        { method: "GET", path: "/v1/app_fee", ok: 200 },
        { method: "PUT", path: "/v1/settings", body: { p2p_pinned_destinations_only: false }, ok: 200 },
        { method: "GET", path: "/v1/settings", ok: 200 },
        // The key is checked before the body: an empty body reaches validation only with a valid key.
        { method: "POST", path: "/v1/subscriptions", body: {}, ok: 400 },
        { method: "GET", path: `/v1/subscriptions/${subscription}`, ok: 200, owned: true },
        { method: "POST", path: `/v1/subscriptions/${subscription}/cancel`, ok: 200, owned: true },
      ];
      const credentials: Array<[string, Headers, (r: (typeof routes)[number]) => number]> = [
        ["no key", {}, () => 401],
        ["malformed key", bearer("not-a-key"), () => 401],
        ["unknown key", bearer(`sk_test_${"x".repeat(43)}`), () => 401],
        ["revoked key", bearer(revoked), () => 401],
        ["wrong type (pk_)", bearer(me.pk), () => 401],
        ["another merchant's key", bearer(other.sk), (r) => (r.owned ? 404 : r.ok)],
        ["the right key", bearer(me.sk), (r) => r.ok],
      ];
      const wrong: string[] = [];
      for (const route of routes) {
        for (const [what, headers, expected] of credentials) {
          const r = await call(route.method, route.path, headers, route.body);
          const want = expected(route);
          const challenged = r.status !== 401 || r.challenge === "Bearer";
          if (r.status !== want || !challenged)
            wrong.push(
              `${route.method} ${route.path} with ${what}: ${r.status} (want ${want}), ${r.challenge}`,
            );
        }
      }
      expect(wrong).toEqual([]);
    },
    T,
  );

  it(
    "checkout routes (pk_ + cs_; the stream by query): 401 + WWW-Authenticate, 404 for another merchant's pk_, 403 for another session's cs_, the right pair passes",
    async () => {
      const me = await newMerchant();
      const other = await newMerchant();
      const revokedPk = me.pk;
      me.pk = await roll(me, "publishable");
      const session = await paymentSession(me);
      const sibling = await paymentSession(me);
      const chain = stackChains()[0];
      if (!chain) throw new Error("no local chain in .local/stack.json");
      const burner = await newBurner(chain);
      const registration = { burner_address: burner.address, eip7702_auth: burner.eip7702Auth };

      const pairs: Array<[string, string | null, string | null, number]> = [
        ["no key", null, null, 401],
        ["malformed key", "pk-nonsense", session.client_secret, 401],
        ["revoked pk_", revokedPk, session.client_secret, 401],
        ["wrong type (sk_)", me.sk, session.client_secret, 401],
        ["no client secret", me.pk, null, 401],
        ["another merchant's pk_", other.pk, session.client_secret, 404],
        ["another session's cs_", me.pk, sibling.client_secret, 403],
      ];
      const headersOf = (pk: string | null, cs: string | null): Headers => ({
        ...(pk ? bearer(pk) : {}),
        ...(cs ? { "x-client-secret": cs } : {}),
      });
      const streamOf = (pk: string | null, cs: string | null) =>
        `/sessions/${session.id}/events?${new URLSearchParams({
          ...(pk ? { pk } : {}),
          ...(cs ? { client_secret: cs } : {}),
        })}`;
      const wrong: string[] = [];
      const check = (
        what: string,
        route: string,
        r: { status: number; challenge: string | null },
        want: number,
      ) => {
        if (r.status !== want || (want === 401 && r.challenge !== "Bearer"))
          wrong.push(`${route} with ${what}: ${r.status} (want ${want}), ${r.challenge}`);
      };
      for (const [what, pk, cs, want] of pairs) {
        const h = headersOf(pk, cs);
        check(
          what,
          "register",
          await call("POST", `/sessions/${session.id}/register`, h, registration),
          want,
        );
        check(what, "quote", await call("GET", `/sessions/${session.id}/quote`, h), want);
        check(what, "commit", await call("POST", `/sessions/${session.id}/commit`, h, {}), want);
        check(what, "events", await call("GET", streamOf(pk, cs)), want);
      }
      expect(wrong).toEqual([]);

      // The right pair: the guard lets each through to the route's own rules.
      const right = headersOf(me.pk, session.client_secret);
      expect((await call("GET", streamOf(me.pk, session.client_secret))).status).toBe(200);
      expect((await call("GET", `/sessions/${session.id}/quote`, right)).status).toBe(409); // not_detected
      expect((await call("POST", `/sessions/${session.id}/commit`, right, {})).status).toBe(400); // its body
      expect((await call("POST", `/sessions/${session.id}/register`, right, registration)).status).toBe(200);
    },
    T,
  );
});
