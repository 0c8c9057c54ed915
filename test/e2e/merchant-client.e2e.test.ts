import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createApiClient, makeBurner, newBurner, payCheckout } from "../../src/client/index.ts";
import {
  ApiError,
  allEvents,
  ClientError,
  cancelSubscription,
  createMerchantClient,
  createPaymentLink,
  createPaymentSession,
  createSubscription,
  deactivatePaymentLink,
  deleteWebhookEndpoint,
  getAppFee,
  getEvent,
  getMerchant,
  getPaymentLink,
  getPaymentSession,
  getSubscription,
  getWebhookDelivery,
  getWebhookEndpoint,
  listDestinations,
  listEvents,
  listWebhookDeliveries,
  type MerchantEvent,
  pinDestination,
  redeliverWebhook,
  revokeKey,
  rollKey,
  setAppFee,
  setWebhookEndpoint,
  verifyWebhook,
} from "../../src/client/merchant/index.ts";
import { waitFor } from "../support/actor-host.ts";
import { fund } from "../support/delegate.ts";
import { merchantStack } from "../support/merchant-stack.ts";
import { mandateBody, mandateOf, newSubscriptionPayer } from "../support/subscription-payer.ts";

// The merchant client library against the real stack: a merchant made through the operator route,
// then only the library, over the real gateway, merchant actors, projection, delivery ledger and
// event list; a checkout paid on the local chains by the payer's library, as a widget would.

const T = 180_000;
const OPERATOR_SECRET = `operator-${"m".repeat(40)}`;
const stack = merchantStack(OPERATOR_SECRET, T);

const createMerchant = () => stack.createMerchant("Library Shop");

describe("the merchant client library on the real stack (MERCHANT_MODE=development)", () => {
  it("reads the merchant with its sk_, rolls it, and the rolled-away key is a 401 http error", async () => {
    const { id, secretKey } = await createMerchant();
    const client = createMerchantClient({ baseUrl: stack.service.url, secretKey });

    const merchant = await getMerchant(client);
    expect(merchant).toMatchObject({ id, name: "Library Shop", livemode: false });
    expect(merchant.keys.find((k) => k.type === "secret")).toMatchObject({ last4: secretKey.slice(-4) });

    const rolled = await rollKey(client);
    expect(rolled.type).toBe("secret");
    expect(rolled.key).toMatch(/^sk_test_/);

    const err = await getMerchant(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).kind, (err as ApiError).status]).toEqual(["http", 401]);

    const next = createMerchantClient({ baseUrl: stack.service.url, secretKey: rolled.key });
    const after = await getMerchant(next);
    expect(after.keys.filter((k) => k.type === "secret" && k.revoked_at === null)).toEqual([
      expect.objectContaining({ id: rolled.id, last4: rolled.key.slice(-4) }),
    ]);
  });

  it("lists no webhook deliveries for a new merchant; an unknown delivery is a 404 to read or redeliver", async () => {
    const { secretKey } = await createMerchant();
    const client = createMerchantClient({ baseUrl: stack.service.url, secretKey });
    expect(await listWebhookDeliveries(client)).toEqual([]);
    for (const call of [getWebhookDelivery, redeliverWebhook]) {
      const err = await call(client, { id: `no-such-${randomUUID()}` }).catch((e: unknown) => e);
      expect([(err as ApiError).kind, (err as ApiError).status]).toEqual(["http", 404]);
    }
  });

  it("revokes the publishable key: the record shows it revoked; an unknown key is a 404", async () => {
    const { secretKey } = await createMerchant();
    const client = createMerchantClient({ baseUrl: stack.service.url, secretKey });
    const pk = (await getMerchant(client)).keys.find((k) => k.type === "publishable");
    expect(pk?.revoked_at).toBeNull();
    expect(await revokeKey(client, { keyId: pk?.id ?? "" })).toBeUndefined();
    const revoked = (await getMerchant(client)).keys.find((k) => k.id === pk?.id);
    expect(revoked?.revoked_at).toEqual(expect.any(String));
    const err = await revokeKey(client, { keyId: "key_unknown" }).catch((e: unknown) => e);
    expect([(err as ApiError).kind, (err as ApiError).status]).toEqual(["http", 404]);
  });
});

/** The status of what a call threw: an ApiError's HTTP status, or the error itself otherwise. */
const statusOf = (p: Promise<unknown>) =>
  p.then(
    () => "resolved",
    (e: unknown) => (e instanceof ApiError ? [e.kind, e.status] : e),
  );

describe("a checkout run through the merchant library on the real stack", () => {
  it(
    "pins a destination, sets the app fee and the endpoint, creates sessions with and without an Idempotency-Key, reads back the paid one and lists its events",
    async () => {
      const m = await createMerchant();
      const client = createMerchantClient({ baseUrl: stack.service.url, secretKey: m.secretKey });
      const dest = makeBurner().address.toLowerCase();
      const feeSink = makeBurner().address.toLowerCase();

      const pin = {
        source_chain_id: stack.A.chain.chainId,
        dest_address: dest,
        dest_chain_id: stack.B.chain.chainId,
      };
      expect(
        await pinDestination(client, {
          sourceChainId: stack.A.chain.chainId,
          destAddress: dest,
          destChainId: stack.B.chain.chainId,
        }),
      ).toEqual([pin]);
      expect(await listDestinations(client)).toEqual([pin]);
      const fee = { app_fee_bps: 100, app_fee_recipient: feeSink, app_fee_recipient_sol: null };
      expect(await setAppFee(client, { appFeeBps: 100, appFeeRecipient: feeSink })).toEqual(fee);
      expect(await getAppFee(client)).toEqual(fee);

      const hookUrl = `http://localhost:${new URL(stack.receiver.url).port}/hook`;
      const endpoint = await setWebhookEndpoint(client, { url: hookUrl });
      expect(endpoint).toMatchObject({ url: hookUrl, secret: expect.stringMatching(/^whsec_/) });
      const shown = await getWebhookEndpoint(client);
      expect(shown).toEqual({ id: endpoint.id, url: hookUrl, created_at: endpoint.created_at });

      // Without a key every call is a new session; with one, the same key and amount the same answer.
      const first = await createPaymentSession(client, { amount: "10000000" });
      const second = await createPaymentSession(client, { amount: 10_000_000n });
      expect(first.id).not.toBe(second.id);
      const key = `order-${randomUUID()}`;
      const keyed = await createPaymentSession(client, { amount: 10_000_000n, idempotencyKey: key });
      expect(await createPaymentSession(client, { amount: "10000000", idempotencyKey: key })).toEqual(keyed);
      expect(
        await statusOf(createPaymentSession(client, { amount: "20000000", idempotencyKey: key })),
      ).toEqual(["http", 409]);
      const refused = await statusOf(createPaymentSession(client, { amount: "10.5" }));
      expect(refused).toBeInstanceOf(ClientError);
      expect((refused as ClientError).code).toBe("config_error");
      expect(keyed).toMatchObject({
        object: "payment_session",
        status: "pending",
        amount: "10000000",
        merchant_id: m.id,
        app_fee_bps: fee.app_fee_bps,
        app_fee_recipient: fee.app_fee_recipient,
        livemode: false,
        client_secret: expect.stringMatching(/^cs_test_/),
      });

      const read = await getPaymentSession(client, { id: keyed.id });
      const { client_secret: _secret, ...created } = keyed;
      expect(read).toMatchObject({ ...created, session: expect.objectContaining({ id: keyed.id }) });
      expect(read).not.toHaveProperty("client_secret");

      // The widget's part, through the payer's library: register, pay on chain A, commit, swept on B.
      const payer = createApiClient({
        baseUrl: stack.service.url,
        checkout: { publishableKey: m.publishableKey, clientSecret: keyed.client_secret },
      });
      const burner = await newBurner(stack.A.chain);
      const { settled } = await payCheckout(payer, {
        id: keyed.id,
        burner,
        usdc: { [stack.A.chain.chainId]: stack.A.chain.usdc },
        onRegistered: () => fund(stack.A, burner.address, stack.A.chain.usdc, 10_000_000n),
        detectionTimeout: 60_000,
        settlementTimeout: 120_000,
      });
      expect(settled).toMatchObject({ status: "swept", outcome: "succeeded" });
      const paid = await getPaymentSession(client, { id: keyed.id });
      expect(paid).toMatchObject({
        status: "swept",
        session: { dest_address: dest, settled_amount: expect.any(String) },
      });

      // The events, walked page by page (two a page), newest first; a read of one; the type filter.
      const wanted = ["payment.succeeded", "payment.processing", "payment.detected"];
      let events: MerchantEvent[] = [];
      await waitFor(
        "the three events listed",
        async () => {
          events = [];
          for await (const e of allEvents(client, { pageSize: 2 })) events.push(e);
          return events.length >= 3 ? true : undefined;
        },
        60_000,
      );
      expect(events.map((e) => [e.type, e.session_id, e.idempotency_key])).toEqual(
        wanted.map((t) => [t, keyed.id, `${keyed.id}:${t}`]),
      );
      expect(await getEvent(client, { id: events[0]?.id ?? "" })).toEqual(events[0]);
      const succeeded = await listEvents(client, { type: "payment.succeeded" });
      expect([succeeded.has_more, succeeded.data.map((e) => e.id)]).toEqual([false, [events[0]?.id]]);
      expect(events[0]?.data).toMatchObject({ session_id: keyed.id, event_type: "payment.succeeded" });

      // The same three reached the endpoint, each verified with the secret the PUT answered.
      await waitFor(
        "the three deliveries",
        async () =>
          (await listWebhookDeliveries(client)).filter((d) => d.state === "delivered").length >= 3
            ? true
            : undefined,
        60_000,
      );
      const posts = (stack.receiver.requests ?? []).filter((r) => r.body.includes(keyed.id));
      expect(posts).toHaveLength(3);
      for (const post of posts) {
        const body = await verifyWebhook({
          payload: post.body,
          header: String(post.headers["service-signature"]),
          secret: endpoint.secret,
        });
        expect(body.session_id).toBe(keyed.id);
      }

      expect(await deleteWebhookEndpoint(client)).toBeUndefined();
      expect(await getWebhookEndpoint(client)).toBeNull();
      expect(await statusOf(deleteWebhookEndpoint(client))).toEqual(["http", 404]);
    },
    T,
  );

  it("creates, reads and deactivates a payment link; another merchant's link is a 404", async () => {
    const client = createMerchantClient({
      baseUrl: stack.service.url,
      secretKey: (await createMerchant()).secretKey,
    });
    // A link nobody could pay is refused until a destination is pinned.
    expect(await statusOf(createPaymentLink(client, { amount: 5_000_000n }))).toEqual(["http", 409]);
    await pinDestination(client, {
      sourceChainId: stack.A.chain.chainId,
      destAddress: makeBurner().address,
      destChainId: stack.B.chain.chainId,
    });
    const link = await createPaymentLink(client, { amount: 5_000_000n, description: "T-shirt" });
    expect(link).toMatchObject({
      object: "payment_link",
      active: true,
      amount: "5000000",
      description: "T-shirt",
    });
    expect(await getPaymentLink(client, { id: link.id })).toEqual(link);
    expect(await deactivatePaymentLink(client, { id: link.id })).toEqual({ ...link, active: false });
    const other = createMerchantClient({
      baseUrl: stack.service.url,
      secretKey: (await createMerchant()).secretKey,
    });
    expect(await statusOf(getPaymentLink(other, { id: link.id }))).toEqual(["http", 404]);
  });

  it("registers a payer-signed mandate, reads it, cancels it; a second registration is a 409", async () => {
    const chain = stack.service.stack.chains.find((c) => c.name === "source");
    if (!chain) throw new Error("the stack has no source chain");
    const client = createMerchantClient({
      baseUrl: stack.service.url,
      secretKey: (await createMerchant()).secretKey,
    });
    const payer = await newSubscriptionPayer(chain, 0n, 0n);
    // Starting an hour from now: nothing is charged while the test runs.
    const mandate = mandateOf(chain, payer);
    const body = mandateBody(chain.chainId, mandate, await payer.signMandate(mandate));
    const params = { chainId: body.chain_id, mandate: body.mandate, signature: body.signature };
    const sub = await createSubscription(client, params);
    // The service answers addresses in lowercase.
    const answered = Object.fromEntries(
      Object.entries(body.mandate).map(([k, v]) => [k, typeof v === "string" ? v.toLowerCase() : v]),
    );
    expect(sub).toMatchObject({ object: "subscription", status: "active", chain_id: chain.chainId });
    expect(sub.mandate).toEqual(answered);
    expect(await getSubscription(client, { id: sub.id })).toEqual(sub);
    expect(await statusOf(createSubscription(client, params))).toEqual(["http", 409]);
    const canceled = await cancelSubscription(client, { id: sub.id });
    expect(canceled).toMatchObject({ id: sub.id, status: "canceled", canceled_by: "merchant" });
    expect(await cancelSubscription(client, { id: sub.id })).toEqual(canceled);
    const other = createMerchantClient({
      baseUrl: stack.service.url,
      secretKey: (await createMerchant()).secretKey,
    });
    expect(await statusOf(getSubscription(other, { id: sub.id }))).toEqual(["http", 404]);
  });
});
