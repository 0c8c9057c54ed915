import { randomInt, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureStack } from "../../deploy/local/stack.ts";
import { type CassandraClient, connectCassandra } from "../../src/store/cassandra.ts";
import { type FillInventory, fillInventory } from "../../src/store/fill-inventory.ts";

// The fast fill's inventory ledger (migration 0017) on the local stack's Cassandra: reservations taken
// exactly once by lightweight transactions, never more than the free inventory, however many writers
// race. Each case has a chain id of its own (one partition per chain).

let cassandra: CassandraClient;
let store: FillInventory;
let settings: Parameters<typeof connectCassandra>[0];

beforeAll(async () => {
  const stack = await ensureStack({ root: ".local" });
  settings = { ...stack.cassandra, keyspace: process.env.CASSANDRA_KEYSPACE ?? "settlement" };
  cassandra = await connectCassandra(settings, { migrate: true });
  store = fillInventory(cassandra);
});
afterAll(async () => {
  await cassandra?.shutdown();
});

const newChain = () => 900_000_000 + randomInt(1_000_000);
const fixed = (balance: bigint) => () => Promise.resolve(balance);

describe("the fill inventory ledger", () => {
  it("reserves a fill once: the same fill reserved again (a re-delivered command) is the same reservation", async () => {
    const chainId = newChain();
    const key = `${randomUUID()}:fill`;
    const args = { chainId, key, amount: 30n, floor: 0n, balance: fixed(100n) };

    const first = await store.reserve(args);
    const again = await store.reserve(args);

    expect(first).toMatchObject({ kind: "reserved", inventory: { reserved: 30n, open: 1 } });
    expect(again).toMatchObject({ kind: "reserved", reservation: { key, amount: 30n, state: "reserved" } });
    expect(await store.totals(chainId)).toEqual({ reserved: 30n, open: 1 });
  });

  it("never promises more than is free: 20 fills of 10 racing for 55 free (balance 60, floor 5) reserve exactly 5", async () => {
    const chainId = newChain();
    // Two clients, as two executor processes would be.
    const otherClient = await connectCassandra(settings, { migrate: false });
    const other = fillInventory(otherClient);
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? other : store).reserve({
            chainId,
            key: `fill-${i}`,
            amount: 10n,
            floor: 5n,
            balance: fixed(60n),
          }),
        ),
      );
      const kinds = outcomes.map((o) => o.kind);
      expect(kinds.filter((k) => k === "reserved")).toHaveLength(5);
      expect(kinds.filter((k) => k === "short")).toHaveLength(15);
      expect(await store.totals(chainId)).toEqual({ reserved: 50n, open: 5 });
      const short = outcomes.find((o) => o.kind === "short");
      expect(short).toMatchObject({
        needed: 10n,
        free: 5n,
        inventory: { balance: 60n, reserved: 50n, floor: 5n },
      });
    } finally {
      await otherClient.shutdown();
    }
  });

  it("a short fill reserves nothing; once the inventory grows it is reserved", async () => {
    const chainId = newChain();
    const key = "waits";
    const short = await store.reserve({ chainId, key, amount: 50n, floor: 10n, balance: fixed(59n) });
    expect(short).toMatchObject({ kind: "short", needed: 50n, free: 49n });
    expect(await store.find(chainId, key)).toBeNull();
    expect(await store.totals(chainId)).toEqual({ reserved: 0n, open: 0 });

    const later = await store.reserve({ chainId, key, amount: 50n, floor: 10n, balance: fixed(60n) });
    expect(later.kind).toBe("reserved");
    expect(await store.totals(chainId)).toEqual({ reserved: 50n, open: 1 });
  });

  it("closes a reservation once: paid frees what it held, a second close changes nothing, and the fill answers paid", async () => {
    const chainId = newChain();
    await store.reserve({ chainId, key: "a", amount: 40n, floor: 0n, balance: fixed(100n) });
    await store.reserve({ chainId, key: "b", amount: 25n, floor: 0n, balance: fixed(100n) });

    expect(await store.close(chainId, "a", { state: "paid", txHash: "0xabc" })).toBe(true);
    expect(await store.close(chainId, "a", { state: "paid", txHash: "0xabc" })).toBe(false);
    expect(await store.close(chainId, "a", { state: "released" })).toBe(false);
    expect(await store.totals(chainId)).toEqual({ reserved: 25n, open: 1 });

    // The payout is out of the balance now (100 - 40): a re-delivered fill is told it was paid.
    const again = await store.reserve({ chainId, key: "a", amount: 40n, floor: 0n, balance: fixed(60n) });
    expect(again).toEqual({
      kind: "paid",
      reservation: { chainId, key: "a", amount: 40n, state: "paid", txHash: "0xabc" },
    });
    expect(await store.totals(chainId)).toEqual({ reserved: 25n, open: 1 });
  });

  it("a released fill (its payout failed for good) frees its amount and can be reserved again by its command", async () => {
    const chainId = newChain();
    await store.reserve({ chainId, key: "r", amount: 70n, floor: 0n, balance: fixed(100n) });
    expect(await store.close(chainId, "r", { state: "released" })).toBe(true);
    expect(await store.totals(chainId)).toEqual({ reserved: 0n, open: 0 });
    expect((await store.find(chainId, "r"))?.state).toBe("released");

    const again = await store.reserve({ chainId, key: "r", amount: 70n, floor: 0n, balance: fixed(100n) });
    expect(again.kind).toBe("reserved");
    expect(await store.totals(chainId)).toEqual({ reserved: 70n, open: 1 });
  });
});
