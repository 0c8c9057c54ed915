import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createChangelogReads } from "../../src/kafka/changelog-reads.ts";

const WAIT_MS = 3000;

/**
 * The broker's end of the key's partition is `end`; records are their key's text. `broker` replaces
 * the broker's answer (one that never comes, or fails).
 */
function reads(opts: {
  end: bigint;
  partition?: number;
  maxKeys?: number;
  broker?: () => Promise<{ partition: number; offset: bigint }>;
}) {
  const asked: string[] = [];
  const changelog = createChangelogReads<string>({
    decode: (value) => value.toString(),
    endOf: async (key) => {
      asked.push(key);
      if (opts.broker) return opts.broker();
      return { partition: opts.partition ?? 2, offset: opts.end };
    },
    waitMs: WAIT_MS,
    maxKeys: opts.maxKeys ?? 10,
  });
  return { changelog, asked };
}

/** Settles once the promise has: true if it did within the fake time already advanced. */
async function settledNow(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  await vi.advanceTimersByTimeAsync(0);
  return done;
}

describe("a gateway's reads of an entity changelog", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("answers a key it holds without asking the broker", async () => {
    const { changelog, asked } = reads({ end: 50n });
    changelog.take("s1", Buffer.from("s1@v1"));
    changelog.take("s1", Buffer.from("s1@v2"));
    expect(changelog.held("s1")).toBe("s1@v2");
    expect(await changelog.committed("s1")).toBe("s1@v2");
    expect(asked).toEqual([]);
  });

  it("waits until the consumer passed the end offset, then answers what it fetched", async () => {
    const { changelog } = reads({ end: 50n });
    changelog.advance(2, 40n);
    const lookup = changelog.committed("s1");
    expect(await settledNow(lookup)).toBe(false);
    // Another partition moving on is not this key's.
    changelog.advance(3, 90n);
    expect(await settledNow(lookup)).toBe(false);
    changelog.take("s1", Buffer.from("s1@v1"));
    changelog.advance(2, 49n);
    expect(await settledNow(lookup)).toBe(false);
    changelog.advance(2, 50n);
    expect(await lookup).toBe("s1@v1");
  });

  it("answers none at once when the consumer is past the end and never fetched the key", async () => {
    const { changelog, asked } = reads({ end: 50n });
    changelog.advance(2, 60n);
    const lookup = changelog.committed("unknown");
    expect(await settledNow(lookup)).toBe(true);
    expect(await lookup).toBeNull();
    expect(asked).toEqual(["unknown"]);
  });

  it("answers none after the bound when the consumer does not get there", async () => {
    const { changelog } = reads({ end: 50n });
    changelog.advance(2, 10n);
    const lookup = changelog.committed("s1");
    await vi.advanceTimersByTimeAsync(WAIT_MS - 1);
    expect(await settledNow(lookup)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await lookup).toBeNull();
  });

  it("answers what it holds within the bound when the broker does not answer, or fails", async () => {
    const silent = reads({ end: 50n, broker: () => new Promise(() => {}) });
    const lookup = silent.changelog.committed("s1");
    await vi.advanceTimersByTimeAsync(WAIT_MS - 1);
    expect(await settledNow(lookup)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await lookup).toBeNull();
    const failing = reads({ end: 50n, broker: () => Promise.reject(new Error("broker down")) });
    expect(await failing.changelog.committed("s1")).toBeNull();
  });

  it("never moves a position back (a restarted consumer reporting an older offset)", async () => {
    const { changelog } = reads({ end: 50n });
    changelog.advance(2, 55n);
    changelog.advance(2, 20n);
    const lookup = changelog.committed("s1");
    expect(await settledNow(lookup)).toBe(true);
  });

  it("is caught up once every partition reached its end, and says false when the bound ran out first", async () => {
    const { changelog } = reads({ end: 0n });
    const ends = new Map([
      [0, 10n],
      [1, 20n],
    ]);
    const catching = changelog.caughtUp(ends, WAIT_MS);
    changelog.advance(0, 10n);
    expect(await settledNow(catching)).toBe(false);
    changelog.advance(1, 21n);
    expect(await catching).toBe(true);
    const stuck = changelog.caughtUp(new Map([[3, 5n]]), WAIT_MS);
    await vi.advanceTimersByTimeAsync(WAIT_MS);
    expect(await stuck).toBe(false);
  });

  it("holds at most maxKeys keys, the least recently fetched forgotten first", () => {
    const { changelog } = reads({ end: 0n, maxKeys: 2 });
    changelog.take("a", Buffer.from("a"));
    changelog.take("b", Buffer.from("b"));
    changelog.take("a", Buffer.from("a2"));
    changelog.take("c", Buffer.from("c"));
    expect([changelog.held("a"), changelog.held("b"), changelog.held("c")]).toEqual(["a2", null, "c"]);
  });
});
