import type { ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import {
  ApiError,
  allEvents,
  ClientError,
  cancelSubscription,
  createPaymentLink,
  createPaymentSession,
  createSubscription,
  deactivatePaymentLink,
  deleteWebhookEndpoint,
  getAppFee,
  getEvent,
  getPaymentLink,
  getPaymentSession,
  getSettings,
  getStealthAnnouncements,
  getStealthMeta,
  getSubscription,
  getWebhookEndpoint,
  listDestinations,
  listEvents,
  pinDestination,
  setAppFee,
  setSettings,
  setStealthMeta,
  setWebhookEndpoint,
} from "../../src/client/merchant/index.ts";
import { sendJson } from "../support/local-http.ts";
import { failure, localMerchant, ok } from "../support/merchant-local.ts";

// The merchant actions of the webhook endpoint, checkout, the event list, payment links and
// subscriptions against a real local HTTP server: each request's method, path, body and headers,
// the amount refused before any request, and which failures of a creating POST are retried.

const { clientFor, requests, server } = localMerchant();
const header = (n: number, name: string) => server()?.requests[n]?.headers[name];
const fail503 = (res: ServerResponse) => sendJson(res, 503, { error: "reply timeout" });
const SESSION = {
  id: "6f1c0000-0000-4000-8000-000000000001",
  object: "payment_session",
  client_secret: "cs_x",
};

describe("the webhook endpoint actions", () => {
  it("get, set (the url as the body, the secret answered) and delete (204: undefined)", async () => {
    const client = await clientFor((req, res) =>
      req.method === "DELETE"
        ? res.writeHead(204).end()
        : sendJson(res, 200, { id: "we_1", url: "https://shop.example/", secret: "whsec_1" }),
    );
    expect(await getWebhookEndpoint(client)).toMatchObject({ id: "we_1" });
    expect(await setWebhookEndpoint(client, { url: "https://shop.example" })).toMatchObject({
      secret: "whsec_1",
    });
    expect(await deleteWebhookEndpoint(client)).toBeUndefined();
    expect(requests()).toEqual([
      ["GET", "/v1/webhook_endpoints", ""],
      ["PUT", "/v1/webhook_endpoints", '{"url":"https://shop.example"}'],
      ["DELETE", "/v1/webhook_endpoints", ""],
    ]);
    expect(header(1, "content-type")).toBe("application/json");
  });

  it("a PUT is retried after a 503 by the client's rules; a 404 of a read is not", async () => {
    const client = await clientFor((_req, res, n) =>
      n === 1 ? fail503(res) : n === 2 ? sendJson(res, 200, { secret: "whsec_2" }) : sendJson(res, 404, {}),
    );
    expect(await setWebhookEndpoint(client, { url: "https://a.example" })).toEqual({ secret: "whsec_2" });
    expect((await failure(getWebhookEndpoint(client))).status).toBe(404);
    expect(requests()).toHaveLength(3);
  });
});

describe("createPaymentSession", () => {
  it("posts { amount } as a string, from a string or a bigint, `stealth` only when true, and answers the session", async () => {
    const client = await clientFor(ok(SESSION));
    expect(await createPaymentSession(client, { amount: "10000000" })).toEqual(SESSION);
    await createPaymentSession(client, { amount: 25_000_000n, stealth: false });
    await createPaymentSession(client, { amount: "1", stealth: true });
    expect(requests()).toEqual([
      ["POST", "/v1/payment_sessions", '{"amount":"10000000"}'],
      ["POST", "/v1/payment_sessions", '{"amount":"25000000"}'],
      ["POST", "/v1/payment_sessions", '{"amount":"1","stealth":true}'],
    ]);
  });

  it("refuses an amount with a non-digit, or a number, with config_error before any request", async () => {
    const client = await clientFor(ok(SESSION));
    const bad: unknown[] = [
      "10.5",
      "1e7",
      " 10",
      "10 ",
      "",
      "-1",
      "+1",
      "0x10",
      "1_000",
      "１０",
      -1n,
      10,
      null,
    ];
    for (const amount of bad) {
      const err = await failure(createPaymentSession(client, { amount: amount as string }));
      expect(err).toBeInstanceOf(ClientError);
      expect(clientCode(err)).toBe("config_error");
      expect(err.message).toMatch(/amount/);
    }
    expect(requests()).toEqual([]);
  });

  it("sends Idempotency-Key only when given", async () => {
    const client = await clientFor(ok(SESSION));
    await createPaymentSession(client, { amount: "1" });
    await createPaymentSession(client, { amount: "1", idempotencyKey: "order-42" });
    expect(header(0, "idempotency-key")).toBeUndefined();
    expect(header(1, "idempotency-key")).toBe("order-42");
  });

  it("without a key a timeout is thrown after one try: the session may exist", async () => {
    // The first request is never answered; a retry would create a second session.
    const client = await clientFor((_req, res, n) => (n === 1 ? undefined : sendJson(res, 200, SESSION)), {
      timeout: 150,
    });
    const err = await failure(createPaymentSession(client, { amount: "1" }));
    expect([err.kind, err.retryable]).toEqual(["timeout", true]);
    expect(requests()).toHaveLength(1);
  });

  it("without a key a 5xx and a dropped connection are thrown after one try", async () => {
    const client = await clientFor((req, res, n) => (n === 1 ? fail503(res) : req.socket.destroy()));
    expect((await failure(createPaymentSession(client, { amount: "1" }))).status).toBe(503);
    expect((await failure(createPaymentSession(client, { amount: "1" }))).kind).toBe("network");
    expect(requests()).toHaveLength(2);
  });

  it("without a key a 429 is retried: the rate limiter refused it before any route ran", async () => {
    const client = await clientFor((_req, res, n) =>
      n === 1 ? sendJson(res, 429, { error: "slow down" }) : sendJson(res, 200, SESSION),
    );
    expect(await createPaymentSession(client, { amount: "1" })).toEqual(SESSION);
    expect(requests()).toHaveLength(2);
  });

  it("with a key a timeout and a 503 are retried, each try with the same key", async () => {
    const client = await clientFor(
      (_req, res, n) => (n === 1 ? undefined : n === 2 ? fail503(res) : sendJson(res, 200, SESSION)),
      { timeout: 150 },
    );
    expect(await createPaymentSession(client, { amount: "1", idempotencyKey: "k1" })).toEqual(SESSION);
    expect(requests()).toHaveLength(3);
    expect([0, 1, 2].map((n) => header(n, "idempotency-key"))).toEqual(["k1", "k1", "k1"]);
  });
});

describe("the checkout reads, destinations and app fee", () => {
  it("getPaymentSession: GET /v1/payment_sessions/:id, the id encoded", async () => {
    const client = await clientFor(ok({ id: "a/b", object: "payment_session" }));
    await getPaymentSession(client, { id: "a/b" });
    expect(requests()).toEqual([["GET", "/v1/payment_sessions/a%2Fb", ""]]);
  });

  it("pinDestination and listDestinations: the API's field names, answering the list", async () => {
    const pin = { source_chain_id: 31337, dest_address: "0xdead", dest_chain_id: 31338 };
    const client = await clientFor(ok({ object: "list", data: [pin] }));
    expect(
      await pinDestination(client, { sourceChainId: 31337, destAddress: "0xdead", destChainId: 31338 }),
    ).toEqual([pin]);
    expect(await listDestinations(client)).toEqual([pin]);
    expect(requests()).toEqual([
      ["PUT", "/v1/destinations", JSON.stringify(pin)],
      ["GET", "/v1/destinations", ""],
    ]);
  });

  it("setAppFee and getAppFee: PUT and GET /v1/app_fee", async () => {
    const fee = { app_fee_bps: 100, app_fee_recipient: "0xfee", app_fee_recipient_sol: "So1Sink" };
    const client = await clientFor(ok(fee));
    expect(
      await setAppFee(client, { appFeeBps: 100, appFeeRecipient: "0xfee", appFeeRecipientSol: "So1Sink" }),
    ).toEqual(fee);
    expect(await getAppFee(client)).toEqual(fee);
    await setAppFee(client, { appFeeBps: 0, appFeeRecipient: "0x00" });
    expect(requests()).toEqual([
      ["PUT", "/v1/app_fee", JSON.stringify(fee)],
      ["GET", "/v1/app_fee", ""],
      // No Solana sink named: the key is left out, so the server sets none.
      ["PUT", "/v1/app_fee", JSON.stringify({ app_fee_bps: 0, app_fee_recipient: "0x00" })],
    ]);
  });

  it("setSettings and getSettings: PUT and GET /v1/settings, the API's spelling", async () => {
    const settings = { object: "settings", p2p_pinned_destinations_only: true };
    const client = await clientFor(ok(settings));
    expect(await setSettings(client, { p2pPinnedDestinationsOnly: true })).toEqual(settings);
    expect(await getSettings(client)).toEqual(settings);
    expect(requests()).toEqual([
      ["PUT", "/v1/settings", JSON.stringify({ p2p_pinned_destinations_only: true })],
      ["GET", "/v1/settings", ""],
    ]);
  });
});

describe("the stealth actions", () => {
  const meta = {
    object: "stealth_meta",
    meta_address: "st:eth:0x02",
    sol_spend_pubkey: null,
    sol_view_pubkey: null,
  };

  it("setStealthMeta and getStealthMeta: PUT and GET /v1/stealth-meta, Solana keys only when given", async () => {
    const client = await clientFor(ok(meta));
    expect(await setStealthMeta(client, { metaAddress: "st:eth:0x02" })).toEqual(meta);
    await setStealthMeta(client, { metaAddress: "st:eth:0x02", solSpendPubkey: "S1", solViewPubkey: "V1" });
    expect(await getStealthMeta(client)).toEqual(meta);
    expect(requests()).toEqual([
      ["PUT", "/v1/stealth-meta", '{"meta_address":"st:eth:0x02"}'],
      [
        "PUT",
        "/v1/stealth-meta",
        '{"meta_address":"st:eth:0x02","sol_spend_pubkey":"S1","sol_view_pubkey":"V1"}',
      ],
      ["GET", "/v1/stealth-meta", ""],
    ]);
  });

  it("getStealthAnnouncements: GET /sessions/:id/stealth with the secret key, the id encoded, answering the list", async () => {
    const one = {
      scheme: "erc5564-1",
      ephemeral_pubkey: "0x02",
      view_tag: 7,
      stealth_address: "0xab",
      chain_id: null,
      tx: null,
    };
    const client = await clientFor((_req, res, n) =>
      n === 1
        ? sendJson(res, 200, { announcements: [one] })
        : sendJson(res, 404, { error: "stealth_not_found" }),
    );
    expect(await getStealthAnnouncements(client, { id: "a/b" })).toEqual([one]);
    expect((await failure(getStealthAnnouncements(client, { id: "c" }))).status).toBe(404);
    expect(requests()).toEqual([
      ["GET", "/sessions/a%2Fb/stealth", ""],
      ["GET", "/sessions/c/stealth", ""],
    ]);
    expect(header(0, "authorization")).toMatch(/^Bearer sk_test_/);
  });
});

describe("the event list", () => {
  it("listEvents: only the parameters given, in the API's spelling; getEvent: the id encoded", async () => {
    const client = await clientFor(ok({ object: "list", data: [], has_more: false, url: "/v1/events" }));
    await listEvents(client);
    await listEvents(client, { limit: 5, startingAfter: "evt_1", type: "payment.succeeded" });
    await getEvent(client, { id: "evt_a/b" });
    expect(requests()).toEqual([
      ["GET", "/v1/events", ""],
      ["GET", "/v1/events?limit=5&starting_after=evt_1&type=payment.succeeded", ""],
      ["GET", "/v1/events/evt_a%2Fb", ""],
    ]);
  });

  const pages = [
    { data: [{ id: "evt_5" }, { id: "evt_4" }], has_more: true },
    { data: [{ id: "evt_3" }, { id: "evt_2" }], has_more: true },
    { data: [{ id: "evt_1" }], has_more: false },
  ];
  const paged = () => clientFor((_req, res, n) => sendJson(res, 200, pages[n - 1]));
  const ids = async (events: AsyncIterable<{ id: string }>, stopAt?: string) => {
    const seen: string[] = [];
    for await (const e of events) {
      if (e.id === stopAt) break;
      seen.push(e.id);
    }
    return seen;
  };

  it("allEvents walks every page, each after the last id of the one before", async () => {
    const client = await paged();
    expect(await ids(allEvents(client, { pageSize: 2, type: "payment.succeeded" }))).toEqual([
      "evt_5",
      "evt_4",
      "evt_3",
      "evt_2",
      "evt_1",
    ]);
    expect(requests().map((r) => r[1])).toEqual([
      "/v1/events?limit=2&type=payment.succeeded",
      "/v1/events?limit=2&starting_after=evt_4&type=payment.succeeded",
      "/v1/events?limit=2&starting_after=evt_2&type=payment.succeeded",
    ]);
  });

  it("allEvents asks for no page the loop does not reach, and stops at an empty page", async () => {
    const client = await paged();
    expect(await ids(allEvents(client, { pageSize: 2 }), "evt_4")).toEqual(["evt_5"]);
    expect(requests()).toHaveLength(1);
    const empty = await clientFor(ok({ data: [], has_more: true }));
    expect(await ids(allEvents(empty))).toEqual([]);
    expect(requests().map((r) => r[1])).toEqual(["/v1/events?limit=100"]);
  });
});

describe("payment links and subscriptions", () => {
  it("createPaymentLink: the body in the API's spelling; a bad amount refused before a request", async () => {
    const client = await clientFor(ok({ id: "plink_1" }));
    await createPaymentLink(client, { amount: 5n });
    await createPaymentLink(client, { amount: "7", description: "T-shirt", expiresAt: 1_900_000_000 });
    expect(clientCode(await failure(createPaymentLink(client, { amount: "7.5" })))).toBe("config_error");
    expect(requests()).toEqual([
      ["POST", "/v1/payment_links", '{"amount":"5"}'],
      ["POST", "/v1/payment_links", '{"amount":"7","description":"T-shirt","expires_at":1900000000}'],
    ]);
  });

  it("createPaymentLink is not retried after a 503 (no Idempotency-Key: it may exist)", async () => {
    const client = await clientFor((_req, res) => fail503(res));
    expect((await failure(createPaymentLink(client, { amount: "7" }))).status).toBe(503);
    expect(requests()).toHaveLength(1);
  });

  it("getPaymentLink, deactivatePaymentLink (retried: it is idempotent), the id encoded", async () => {
    const client = await clientFor((_req, res, n) => (n === 2 ? fail503(res) : sendJson(res, 200, {})));
    await getPaymentLink(client, { id: "p/1" });
    await deactivatePaymentLink(client, { id: "p/1" });
    expect(requests().map((r) => r.slice(0, 2))).toEqual([
      ["GET", "/v1/payment_links/p%2F1"],
      ["POST", "/v1/payment_links/p%2F1/deactivate"],
      ["POST", "/v1/payment_links/p%2F1/deactivate"],
    ]);
  });

  it("createSubscription, getSubscription, cancelSubscription", async () => {
    const client = await clientFor(ok({ id: "s1", object: "subscription" }));
    const mandate = {
      payer: "0x01",
      token: "0x02",
      amount: "1000000",
      period: 86_400,
      start: 1_900_000_000,
      merchant: "0x03",
      app_fee_bps: 0,
      app_fee_recipient: "0x04",
      salt: "0x05",
    };
    await createSubscription(client, { chainId: 31337, mandate, signature: "0xsig" });
    await getSubscription(client, { id: "s/1" });
    await cancelSubscription(client, { id: "s/1" });
    expect(requests()).toEqual([
      ["POST", "/v1/subscriptions", JSON.stringify({ chain_id: 31337, mandate, signature: "0xsig" })],
      ["GET", "/v1/subscriptions/s%2F1", ""],
      ["POST", "/v1/subscriptions/s%2F1/cancel", ""],
    ]);
  });
});

/** The interface's client error code of a failure (ClientError or ApiError alike). */
function clientCode(err: unknown): string | undefined {
  return err instanceof ClientError || err instanceof ApiError ? err.code : undefined;
}
