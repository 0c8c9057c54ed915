import { describe, expect, it } from "vitest";
import type { CassandraClient } from "../../src/store/cassandra.ts";
import { type ConditionalBatcher, createConditionalBatcher } from "../../src/store/conditional-batches.ts";

// The batcher against a table in memory whose only statement is "insert row IF NOT EXISTS" (the
// query text is the row): a batch applies all or nothing, as Cassandra's conditional batch does.
// Its real form is the webhooks integration test's.

function memoryTable() {
  const rows = new Set<string>();
  const calls: string[][] = [];
  const applied = (ok: boolean) => ({ wasApplied: () => ok });
  const client = {
    async execute(query: string) {
      calls.push([query]);
      if (rows.has(query)) return applied(false);
      rows.add(query);
      return applied(true);
    },
    async batch(queries: Array<{ query: string }>) {
      calls.push(queries.map((q) => q.query));
      if (queries.some((q) => rows.has(q.query))) return applied(false);
      for (const q of queries) rows.add(q.query);
      return applied(true);
    },
  } as unknown as CassandraClient;
  return { client, rows, calls };
}

const insert = (row: string) => ({ row, query: row, params: [], bytes: 100 });
/** Submits one insert per row to partition "p", together: whether each applied. */
const submitAll = (b: ConditionalBatcher, rows: string[]) =>
  Promise.all(rows.map((r) => b.submit("p", insert(r))));

describe("the conditional batcher", () => {
  it("sends the writes submitted together as one batch: one round", async () => {
    const t = memoryTable();
    const b = createConditionalBatcher(t.client);
    expect(await submitAll(b, ["a", "b", "c"])).toEqual([true, true, true]);
    expect(t.calls).toEqual([["a", "b", "c"]]);
    expect(b.rounds()).toBe(1);
  });

  it("tries each write alone when the batch does not apply, so only the present row is refused", async () => {
    const t = memoryTable();
    const b = createConditionalBatcher(t.client);
    await b.submit("p", insert("b"));
    expect(await submitAll(b, ["a", "b", "c"])).toEqual([true, false, true]);
    expect(t.calls).toEqual([["b"], ["a", "b", "c"], ["a"], ["b"], ["c"]]);
    expect([...t.rows].sort()).toEqual(["a", "b", "c"]);
  });

  it("never puts two writes of one row in a batch: the second waits for the next and sees the first", async () => {
    const t = memoryTable();
    const b = createConditionalBatcher(t.client);
    expect(await submitAll(b, ["a", "a", "b"])).toEqual([true, false, true]);
    expect(t.calls).toEqual([["a"], ["a", "b"], ["a"], ["b"]]);
  });

  it("keeps partitions apart, and gathers what comes while a partition's batch is in flight", async () => {
    const t = memoryTable();
    const b = createConditionalBatcher(t.client);
    const first = b.submit("p", insert("a"));
    const other = b.submit("q", insert("x"));
    await new Promise((r) => setImmediate(r));
    // "a" is in flight: these two wait for it and go together.
    const later = [b.submit("p", insert("b")), b.submit("p", insert("c"))];
    expect(await Promise.all([first, other, ...later])).toEqual([true, true, true, true]);
    expect(t.calls).toEqual([["a"], ["x"], ["b", "c"]]);
  });

  it("cuts batches at 64 rows", async () => {
    const t = memoryTable();
    const b = createConditionalBatcher(t.client);
    const rows = Array.from({ length: 100 }, (_, i) => `r${i}`);
    await Promise.all(rows.map((r) => b.submit("p", insert(r))));
    expect(t.calls.map((c) => c.length)).toEqual([64, 36]);
  });

  it("answers every write of a batch that failed with its error", async () => {
    const b = createConditionalBatcher({
      batch: async () => {
        throw new Error("write timeout");
      },
    } as unknown as CassandraClient);
    const results = await Promise.allSettled(["a", "b"].map((r) => b.submit("p", insert(r))));
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
