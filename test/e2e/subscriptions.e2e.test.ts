import { randomUUID } from "node:crypto";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { subscriptionManagerAbi } from "../../src/chains/evm/abi.ts";
import {
  type MandateMessage,
  mandateDigest,
  subscriptionIdFromDigest,
} from "../../src/chains/evm/subscriptions/subscriptions.ts";
import { readTopic } from "../../src/kafka/topic-reader.ts";
import { codecs } from "../support/codecs.ts";
import { createMerchant as operatorCreates } from "../support/operator.ts";
import { startTestService, type TestService } from "../support/service.ts";
import {
  chainClients,
  mandateBody,
  mandateOf,
  newSubscriptionPayer,
  type Payer,
  randomAddress,
  subscriptionWebhooks,
} from "../support/subscription-payer.ts";

// Subscriptions on the real stack (MERCHANT_MODE=development): the mandate signed by a payer on the
// local chain, registered through the merchant API, read, charged each period by the actor's timer
// through the executor's relayer on the chain (wall-clock periods of a few seconds: the stack's anvil
// keeps wall-clock time, one block a second), canceled, with the webhook events the subscription actor
// wrote to webhook.events.

const OPERATOR_SECRET = `operator-${"s".repeat(40)}`;
const T = 60_000;
let service: TestService;
let chain: LocalChain;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "executor", "gateway"],
    env: { MERCHANT_MODE: "development", OPERATOR_SECRET, RATE_LIMIT_BURST: "1000" },
  });
  const source = service.stack.chains.find((c) => c.name === "source");
  if (!source?.subscriptions) throw new Error("the stack's source chain has no SubscriptionManager");
  chain = source;
}, 180_000);
afterAll(async () => {
  await service?.stop();
});

async function createMerchant(): Promise<string> {
  return (await operatorCreates(service.url, OPERATOR_SECRET, "Subscription Shop")).secretKey;
}

async function call(method: string, path: string, key: string | null, body?: unknown) {
  const res = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Polls webhook.events until `done` holds for the subscription's events (or fails after `ms`). */
async function webhooksUntil(id: string, done: (keys: string[]) => boolean, ms = 60_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const events = await subscriptionWebhooks(service.kafka, service.config.SESSION_PARTITIONS, id);
    if (done(events.map((e) => e.idempotencyKey))) return events;
    if (Date.now() > deadline)
      throw new Error(`webhooks of ${id}: ${events.map((e) => e.idempotencyKey).join(", ")}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** POST /v1/subscriptions of `m`, signed by its payer. */
async function register(sk: string, payer: Payer, m: MandateMessage) {
  return call("POST", "/v1/subscriptions", sk, mandateBody(chain.chainId, m, await payer.signMandate(m)));
}

const webhookTypes = async (id: string) =>
  (await subscriptionWebhooks(service.kafka, service.config.SESSION_PARTITIONS, id)).map(
    (w) => w.idempotencyKey,
  );

describe("subscriptions through the merchant API", () => {
  it(
    "registers a signed mandate once (the id from its digest), reads it, and answers a second registration 409",
    async () => {
      const sk = await createMerchant();
      const payer = await newSubscriptionPayer(chain, 0n, 0n);
      const m = await mandateOf(chain, payer, { appFeeBps: 25, appFeeRecipient: randomAddress() });
      const body = mandateBody(chain.chainId, m, await payer.signMandate(m));
      const created = await call("POST", "/v1/subscriptions", sk, body);
      expect(created.status).toBe(201);
      const id = subscriptionIdFromDigest(mandateDigest(chain.chainId, payer.manager, m));
      expect(created.body).toMatchObject({
        id,
        object: "subscription",
        status: "active",
        chain_id: chain.chainId,
        fee_bps: 80,
        mandate: { payer: m.payer.toLowerCase(), amount: "1000000", app_fee_bps: 25 },
        last_charged_period: null,
        next_charge_at: new Date(Number(m.start) * 1000).toISOString(),
      });
      expect((await call("GET", `/v1/subscriptions/${id}`, sk)).body).toEqual(created.body);
      const again = await call("POST", "/v1/subscriptions", sk, body);
      expect(again).toEqual({ status: 409, body: { error: "a subscription with this mandate exists" } });
      // Another merchant cannot see it, nor register it again.
      const other = await createMerchant();
      expect((await call("GET", `/v1/subscriptions/${id}`, other)).status).toBe(404);
      expect((await call("POST", "/v1/subscriptions", other, body)).status).toBe(409);
      expect(await webhookTypes(id)).toEqual([`sub:${id}:created`]);
      // Two concurrent registrations of one new mandate: the one actor that owns its digest takes one.
      const m2 = await mandateOf(chain, payer);
      const both = await Promise.all([register(sk, payer, m2), register(sk, payer, m2)]);
      expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    },
    T,
  );

  it(
    "refuses a signature that is not the payer's, a broken mandate, an unknown chain and no key",
    async () => {
      const sk = await createMerchant();
      const payer = await newSubscriptionPayer(chain, 0n, 0n);
      const m = await mandateOf(chain, payer);
      const signature = await payer.signMandate(m);
      const post = (b: unknown, key: string | null = sk) => call("POST", "/v1/subscriptions", key, b);
      const altered = mandateBody(chain.chainId, { ...m, amount: 2_000_000n }, signature);
      expect((await post(altered)).body).toEqual({
        error: "the signature does not recover to the mandate's payer",
      });
      const zeroMerchant = { ...m, merchant: "0x0000000000000000000000000000000000000000" as const };
      const broken = await post(
        mandateBody(chain.chainId, zeroMerchant, await payer.signMandate(zeroMerchant)),
      );
      expect(broken).toEqual({ status: 400, body: { error: "merchant must not be the zero address" } });
      expect((await post(mandateBody(999, m, signature))).status).toBe(400);
      expect((await post({ ...mandateBody(chain.chainId, m, signature), extra: 1 })).status).toBe(400);
      expect((await post(mandateBody(chain.chainId, m, signature), null)).status).toBe(401);
    },
    T,
  );

  it(
    "cancels by the merchant API and by the payer's signed Cancel; another merchant's cancel is 404",
    async () => {
      const sk = await createMerchant();
      const payer = await newSubscriptionPayer(chain, 0n, 0n);
      const registerOne = async () => {
        const res = await register(sk, payer, await mandateOf(chain, payer));
        return { id: res.body.id as string, digest: res.body.digest as Hex };
      };

      const a = await registerOne();
      expect((await call("POST", `/v1/subscriptions/${a.id}/cancel`, await createMerchant())).status).toBe(
        404,
      );
      const canceled = await call("POST", `/v1/subscriptions/${a.id}/cancel`, sk);
      expect(canceled.body).toMatchObject({
        status: "canceled",
        canceled_by: "merchant",
        next_charge_at: null,
      });
      expect((await call("POST", `/v1/subscriptions/${a.id}/cancel`, sk)).body).toEqual(canceled.body);

      const b = await registerOne();
      const stranger = await newSubscriptionPayer(chain, 0n, 0n);
      const forged = await call("POST", `/subscriptions/${b.id}/cancel`, null, {
        signature: await stranger.signCancel(b.digest),
      });
      expect(forged).toEqual({
        status: 400,
        body: { error: "the signature is not the payer's Cancel of this subscription" },
      });
      const byPayer = await call("POST", `/subscriptions/${b.id}/cancel`, null, {
        signature: await payer.signCancel(b.digest),
      });
      expect(byPayer.body).toMatchObject({ status: "canceled", canceled_by: "payer" });
      // The service relays the payer's Cancel on chain (cancelBySig from its relayer): the mandate is dead there too.
      const { client } = chainClients(chain);
      const canceledOnChain = (digest: Hex = b.digest) =>
        client.readContract({
          address: payer.manager,
          abi: subscriptionManagerAbi,
          functionName: "canceled",
          args: [digest],
        });
      const relayDeadline = Date.now() + 30_000;
      while (!(await canceledOnChain()) && Date.now() < relayDeadline)
        await new Promise((r) => setTimeout(r, 500));
      expect(await canceledOnChain()).toBe(true);
      // The merchant's cancel stops the service's charging; the mandate stays valid on chain (only our relayer can charge).
      expect(await canceledOnChain(a.digest)).toBe(false);
      expect(
        (await call("POST", `/subscriptions/${randomUUID()}/cancel`, null, { signature: "0x00" })).status,
      ).toBe(404);

      expect(await webhookTypes(a.id)).toEqual([`sub:${a.id}:created`, `sub:${a.id}:canceled`]);
      expect(await webhookTypes(b.id)).toEqual([`sub:${b.id}:created`, `sub:${b.id}:canceled`]);
    },
    T,
  );

  // Two subscriptions on the timer path at once: one charged three periods, one whose failing charge
  // is retried. Set up one after the other (their payers are funded from one key), then waited on
  // together, so the file pays for the longer wait only.
  it("charges one subscription three periods (fees to the platform, the rest to the merchant, one subscription.charged each) while another's failing charge (no allowance) is retried three times in its period, one subscription.charge_failed each, then stops", async () => {
    const charging = await chargingSubscription();
    const failing = await failingSubscription();
    await Promise.all([charging.check(), failing.check()]);
  }, 120_000);

  it("cancels from all three paths at once (merchant API, payer's gasless cancel, payer on chain): one subscription.canceled", async () => {
    const sk = await createMerchant();
    const payer = await newSubscriptionPayer(chain, 0n, 0n);
    const m = await mandateOf(chain, payer);
    const res = await register(sk, payer, m);
    const id = res.body.id as string;
    const digest = res.body.digest as Hex;
    const cancelSig = await payer.signCancel(digest);
    const { client } = chainClients(chain);

    const [byMerchant, byPayer, onChain] = await Promise.all([
      call("POST", `/v1/subscriptions/${id}/cancel`, sk),
      call("POST", `/subscriptions/${id}/cancel`, null, { signature: cancelSig }),
      payer.wallet
        .writeContract({
          address: payer.manager,
          abi: subscriptionManagerAbi,
          functionName: "cancel",
          args: [m],
          gas: 200_000n,
        })
        .then((hash) => client.waitForTransactionReceipt({ hash })),
    ]);
    expect(byMerchant.status).toBe(200);
    expect(byPayer.status).toBe(200);
    expect(byMerchant.body.status).toBe("canceled");

    // Canceled on chain exactly once, by the payer's own transaction or by the relayed cancelBySig.
    expect(
      await client.readContract({
        address: payer.manager,
        abi: subscriptionManagerAbi,
        functionName: "canceled",
        args: [digest],
      }),
    ).toBe(true);
    // Whichever on-chain cancel landed (the payer's own or the relayed cancelBySig; the other reverts),
    // its Canceled log is mirrored: all three paths reach the actor.
    expect(["success", "reverted"]).toContain(onChain.status);
    const sources = await commandsUntil(id, (x) =>
      ["merchant", "payer", "chain"].every((p) => x.includes(p)),
    );
    expect(sources.filter((x) => x === "chain")).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 2_000));
    const canceled = (
      await subscriptionWebhooks(service.kafka, service.config.SESSION_PARTITIONS, id)
    ).filter((w) => w.eventType === "subscription.canceled");
    expect(canceled.map((w) => w.idempotencyKey)).toEqual([`sub:${id}:canceled`]);
    const view = await call("GET", `/v1/subscriptions/${id}`, sk);
    expect(view.body).toMatchObject({ status: "canceled", next_charge_at: null });
    expect(["merchant", "payer", "chain"]).toContain(view.body.canceled_by);
  }, 120_000);
});

/** The sources of the CancelSubscription commands sent to one subscription, polled until `done`. */
async function commandsUntil(
  id: string,
  done: (sources: string[]) => boolean,
  ms = 30_000,
): Promise<string[]> {
  const deadline = Date.now() + ms;
  for (;;) {
    const sources: string[] = [];
    await readTopic(service.kafka, {
      topic: "subscription.commands",
      from: new Map(Array.from({ length: service.config.SESSION_PARTITIONS }, (_, p) => [p, 0n] as const)),
      onBatch: (records) => {
        for (const r of records) {
          if (r.key?.toString() !== id || !r.value) continue;
          const c = codecs.subscriptionCommand.decode(r.value);
          if (c.type === "CancelSubscription") sources.push(c.data.source);
        }
      },
    });
    if (done(sources)) return sources;
    if (Date.now() > deadline) throw new Error(`cancels of ${id}: ${sources.join(", ")}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** A subscription charged every 8 s from its start; `check` waits for three charges and checks them. */
async function chargingSubscription() {
  const amount = 1_000_000n;
  const { sk, payer, m, id } = await registered(10n * amount, 10n * amount, {
    amount,
    period: 8n,
    startsIn: 2,
  });
  const check = async () => {
    const charged = (k: string[]) => k.filter((x) => x.startsWith(`sub:${id}:charged:`));
    const events = await webhooksUntil(id, (k) => charged(k).length >= 3, 90_000);
    expect(charged(events.map((e) => e.idempotencyKey))).toEqual(
      [0, 1, 2].map((p) => `sub:${id}:charged:${p}`),
    );
    const bodies = events
      .filter((e) => e.eventType === "subscription.charged")
      .map((e) => JSON.parse(e.payload));
    expect(bodies.map((b) => b.period_index)).toEqual([0, 1, 2]);
    expect(bodies[0]).toMatchObject({
      subscription_id: id,
      event_type: "subscription.charged",
      amount: "1000000",
      fee_bps: 80,
      app_fee_bps: 0,
      app_fee_recipient: "0x0000000000000000000000000000000000000000",
    });
    expect(new Set(bodies.map((b) => b.tx_hash)).size).toBe(3);
    // 80 bps of 1 USDC to the platform, the rest to the merchant, three times; no failure on the way.
    expect(await payer.balance(m.merchant)).toBeGreaterThanOrEqual(3n * 992_000n);
    expect(events.some((e) => e.eventType === "subscription.charge_failed")).toBe(false);
    const view = await call("GET", `/v1/subscriptions/${id}`, sk);
    expect(view.body.last_charged_period).toBeGreaterThanOrEqual(2);
    await call("POST", `/v1/subscriptions/${id}/cancel`, sk);
  };
  return { check };
}

/** A subscription whose payer allowed nothing; `check` waits for its three failed attempts and then quiet. */
async function failingSubscription() {
  const { sk, payer, m, id } = await registered(10_000_000n, 0n, { period: 30n, startsIn: 1 });
  const check = async () => {
    const failedKeys = (k: string[]) => k.filter((x) => x.startsWith(`sub:${id}:charge_failed:0:`));
    const events = await webhooksUntil(id, (k) => failedKeys(k).length >= 3);
    expect(failedKeys(events.map((e) => e.idempotencyKey))).toEqual(
      [1, 2, 3].map((a) => `sub:${id}:charge_failed:0:${a}`),
    );
    const body = JSON.parse(
      events.find((e) => e.eventType === "subscription.charge_failed")?.payload ?? "{}",
    );
    expect(body).toMatchObject({ subscription_id: id, period_index: 0, attempt: 1 });
    expect(body.error_message).toMatch(/ERC20InsufficientAllowance/);
    // Out of attempts for period 0: nothing more until period 1 (30 s later), and nothing was charged.
    await new Promise((r) => setTimeout(r, 5_000));
    const after = await subscriptionWebhooks(service.kafka, service.config.SESSION_PARTITIONS, id);
    expect(after.filter((e) => e.eventType !== "subscription.created").map((e) => e.idempotencyKey)).toEqual(
      [1, 2, 3].map((a) => `sub:${id}:charge_failed:0:${a}`),
    );
    expect(await payer.balance(m.merchant)).toBe(0n);
    await call("POST", `/v1/subscriptions/${id}/cancel`, sk);
  };
  return { check };
}

/** A new merchant's subscription from a payer funded and approved as given, starting `startsIn` s from now. */
async function registered(
  funds: bigint,
  allowance: bigint,
  { startsIn, ...terms }: { amount?: bigint; period: bigint; startsIn: number },
) {
  const sk = await createMerchant();
  const payer = await newSubscriptionPayer(chain, funds, allowance);
  const m = await mandateOf(chain, payer, {
    ...terms,
    start: BigInt(Math.floor(Date.now() / 1000) + startsIn),
  });
  const res = await register(sk, payer, m);
  expect(res.status).toBe(201);
  return { sk, payer, m, id: res.body.id as string };
}
