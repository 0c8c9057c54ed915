import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import type { LinkEvent } from "../../src/domain/link/types.ts";
import { newSlug } from "../../src/gateway/admin/link-admin.ts";
import { type CassandraClient, connectCassandra } from "../../src/store/cassandra.ts";
import { createLinkStore, type LinkStore } from "../../src/store/payment-links.ts";

// The payment link projection (migration 0009) on the local stack's Cassandra.

let cassandra: CassandraClient;
let store: LinkStore;

beforeAll(async () => {
  const stack = await ensureStack({ root: ".local" });
  cassandra = await connectCassandra({ ...stack.cassandra, keyspace: "settlement" }, { migrate: true });
  store = createLinkStore(cassandra);
});
afterAll(async () => {
  await cassandra?.shutdown();
});

describe("the payment link projection in Cassandra", () => {
  it("finds a link by id and by slug; a re-delivered creation never reactivates a deactivated link", async () => {
    const linkId = `plink_test_${randomUUID()}`;
    const slug = newSlug();
    const meta = (version: number) => ({
      linkId,
      version,
      occurredAt: 1_800_000_000_000 + version,
      commandId: "c",
    });
    const created: LinkEvent = {
      type: "LinkCreated",
      data: {
        merchantId: "mer_a",
        slug,
        amount: "25000000",
        description: null,
        expiresAt: 1_900_000_000_000,
      },
      metadata: meta(1),
    };
    const deactivated: LinkEvent = { type: "LinkDeactivated", data: {}, metadata: meta(2) };

    expect(await store.link(linkId)).toBeNull();
    expect(await store.bySlug(slug)).toBeNull();
    await store.apply(created);
    const row = await store.link(linkId);
    expect(row).toEqual({
      id: linkId,
      merchantId: "mer_a",
      slug,
      amount: "25000000",
      description: null,
      expiresAt: 1_900_000_000_000,
      createdAt: 1_800_000_000_001,
      deactivatedAt: null,
      version: 1,
    });
    expect(await store.bySlug(slug)).toEqual(row);

    await store.apply(deactivated);
    await store.apply(created); // at least once: the older event again
    expect(await store.bySlug(slug)).toMatchObject({ deactivatedAt: 1_800_000_000_002, version: 2 });
  });
});
