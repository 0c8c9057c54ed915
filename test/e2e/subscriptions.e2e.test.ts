import { randomUUID } from "node:crypto";
import type { Hex } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../deploy/local/chains.ts";
import {
  type MandateMessage,
  mandateDigest,
  subscriptionIdFromDigest,
} from "../../src/chains/evm/subscriptions.ts";
import { startTestService, type TestService } from "../support/service.ts";
import {
  mandateBody,
  newSalt,
  newSubscriptionPayer,
  type Payer,
  randomAddress,
  subscriptionWebhooks,
} from "../support/subscription-payer.ts";

// Subscriptions on the real stack (MERCHANT_MODE=development): the mandate signed by a payer on the
// local chain, registered through the merchant API, read, canceled, with the webhook events the
// subscription actor wrote to webhook.events.

const OPERATOR_SECRET = `operator-${"s".repeat(40)}`;
const T = 60_000;
let service: TestService;
let chain: LocalChain;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "gateway"],
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
  const res = await fetch(`${service.url}/v1/operator/merchants`, {
    method: "POST",
    headers: { authorization: `Bearer ${OPERATOR_SECRET}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Subscription Shop", email: `subs-${randomUUID()}@merchant.test` }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { secret_key: string }).secret_key;
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

async function mandateOf(payer: Payer, over: Partial<MandateMessage> = {}): Promise<MandateMessage> {
  return {
    payer: payer.account.address,
    token: chain.usdc,
    amount: 1_000_000n,
    period: 3_600n,
    start: BigInt(Math.floor(Date.now() / 1000) + 3_600),
    merchant: randomAddress(),
    appFeeBps: 0,
    appFeeRecipient: "0x0000000000000000000000000000000000000000",
    salt: newSalt(),
    ...over,
  };
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
      const m = await mandateOf(payer, { appFeeBps: 25, appFeeRecipient: randomAddress() });
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
    },
    T,
  );

  it(
    "refuses a signature that is not the payer's, a broken mandate, an unknown chain and no key",
    async () => {
      const sk = await createMerchant();
      const payer = await newSubscriptionPayer(chain, 0n, 0n);
      const m = await mandateOf(payer);
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
      const register = async () => {
        const m = await mandateOf(payer);
        const res = await call(
          "POST",
          "/v1/subscriptions",
          sk,
          mandateBody(chain.chainId, m, await payer.signMandate(m)),
        );
        return { id: res.body.id as string, digest: res.body.digest as Hex };
      };

      const a = await register();
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

      const b = await register();
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
      expect(
        (await call("POST", `/subscriptions/${randomUUID()}/cancel`, null, { signature: "0x00" })).status,
      ).toBe(404);

      expect(await webhookTypes(a.id)).toEqual([`sub:${a.id}:created`, `sub:${a.id}:canceled`]);
      expect(await webhookTypes(b.id)).toEqual([`sub:${b.id}:created`, `sub:${b.id}:canceled`]);
    },
    T,
  );
});
