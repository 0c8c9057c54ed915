import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ApiError,
  createMerchantClient,
  getMerchant,
  getWebhookDelivery,
  listWebhookDeliveries,
  redeliverWebhook,
  revokeKey,
  rollKey,
} from "../../src/client/merchant/index.ts";
import { startTestService, type TestService } from "../support/service.ts";

// The merchant client library against the real stack: a merchant made through the operator route,
// then only the library, over the real gateway, merchant actors, projection and delivery ledger.

const OPERATOR_SECRET = `operator-${"m".repeat(40)}`;
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "gateway"],
    env: { MERCHANT_MODE: "development", OPERATOR_SECRET, RATE_LIMIT_BURST: "1000" },
  });
});
afterAll(async () => {
  await service?.stop();
});

async function createMerchant(): Promise<{ id: string; secretKey: string }> {
  const res = await fetch(`${service.url}/v1/operator/merchants`, {
    method: "POST",
    headers: { authorization: `Bearer ${OPERATOR_SECRET}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Library Shop", email: `lib-${randomUUID()}@merchant.test` }),
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { merchant: { id: string }; secret_key: string };
  return { id: body.merchant.id, secretKey: body.secret_key };
}

describe("the merchant client library on the real stack (MERCHANT_MODE=development)", () => {
  it("reads the merchant with its sk_, rolls it, and the rolled-away key is a 401 http error", async () => {
    const { id, secretKey } = await createMerchant();
    const client = createMerchantClient({ baseUrl: service.url, secretKey });

    const merchant = await getMerchant(client);
    expect(merchant).toMatchObject({ id, name: "Library Shop", livemode: false });
    expect(merchant.keys.find((k) => k.type === "secret")).toMatchObject({ last4: secretKey.slice(-4) });

    const rolled = await rollKey(client);
    expect(rolled.type).toBe("secret");
    expect(rolled.key).toMatch(/^sk_test_/);

    const err = await getMerchant(client).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect([(err as ApiError).kind, (err as ApiError).status]).toEqual(["http", 401]);

    const next = createMerchantClient({ baseUrl: service.url, secretKey: rolled.key });
    const after = await getMerchant(next);
    expect(after.keys.filter((k) => k.type === "secret" && k.revoked_at === null)).toEqual([
      expect.objectContaining({ id: rolled.id, last4: rolled.key.slice(-4) }),
    ]);
  });

  it("lists no webhook deliveries for a new merchant; an unknown delivery is a 404 to read or redeliver", async () => {
    const { secretKey } = await createMerchant();
    const client = createMerchantClient({ baseUrl: service.url, secretKey });
    expect(await listWebhookDeliveries(client)).toEqual([]);
    for (const call of [getWebhookDelivery, redeliverWebhook]) {
      const err = await call(client, { id: `no-such-${randomUUID()}` }).catch((e: unknown) => e);
      expect([(err as ApiError).kind, (err as ApiError).status]).toEqual(["http", 404]);
    }
  });

  it("revokes the publishable key: the record shows it revoked; an unknown key is a 404", async () => {
    const { secretKey } = await createMerchant();
    const client = createMerchantClient({ baseUrl: service.url, secretKey });
    const pk = (await getMerchant(client)).keys.find((k) => k.type === "publishable");
    expect(pk?.revoked_at).toBeNull();
    expect(await revokeKey(client, { keyId: pk?.id ?? "" })).toBeUndefined();
    const revoked = (await getMerchant(client)).keys.find((k) => k.id === pk?.id);
    expect(revoked?.revoked_at).toEqual(expect.any(String));
    const err = await revokeKey(client, { keyId: "key_unknown" }).catch((e: unknown) => e);
    expect([(err as ApiError).kind, (err as ApiError).status]).toEqual(["http", 404]);
  });
});
