import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import type { MerchantEvent } from "../../src/domain/merchant/types.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";
import { type CassandraClient, connectCassandra } from "../../src/store/cassandra.ts";
import { createMerchantStore, type MerchantStore } from "../../src/store/merchants.ts";

let cassandra: CassandraClient;
let store: MerchantStore;

beforeAll(async () => {
  const stack = await ensureStack({ root: ".local" });
  cassandra = await connectCassandra({ ...stack.cassandra, keyspace: "settlement" }, { migrate: true });
  store = createMerchantStore(cassandra);
});
afterAll(async () => {
  await cassandra?.shutdown();
});

describe("the merchant projection in Cassandra", () => {
  it("is written at least once: a re-delivered older event never undoes a newer one", async () => {
    const merchantId = `mer_test_${randomUUID()}`;
    const sk = issueKey("secret", "test");
    const meta = (version: number) => ({
      merchantId,
      version,
      occurredAt: 1_800_000_000_000 + version,
      commandId: "c",
    });
    const created: MerchantEvent = {
      type: "MerchantCreated",
      data: { name: "Shop", email: "a@shop.test" },
      metadata: meta(1),
    };
    const issued: MerchantEvent = { type: "KeyIssued", data: sk.issued, metadata: meta(2) };
    const revoked: MerchantEvent = {
      type: "KeyRevoked",
      data: { keyId: sk.issued.keyId, hash: sk.issued.hash },
      metadata: meta(3),
    };
    for (const e of [created, issued, revoked]) await store.apply(e);
    // The batch again, as after a crash before the consumer committed: nothing changes.
    for (const e of [created, issued]) await store.apply(e);

    const key = await store.keyByHash(sk.issued.hash);
    expect(key).toMatchObject({ merchantId, keyId: sk.issued.keyId, kind: "secret", publishable: null });
    expect(key?.revokedAt).toBe(1_800_000_000_003);
    expect((await store.keysOf(merchantId)).map((k) => k.revokedAt)).toEqual([1_800_000_000_003]);
    expect(await store.merchant(merchantId)).toMatchObject({ name: "Shop", version: 3 });
  });

  it("finds no merchant from a version cell alone, and no key for an unknown hash", async () => {
    expect(await store.merchant(`mer_test_${randomUUID()}`)).toBeNull();
    expect(await store.keyByHash("0".repeat(64))).toBeNull();
  });
});
