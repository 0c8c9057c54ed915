import { describe, expect, it } from "vitest";
import { firstNotReady, indexerNotReady, MAX_EVENT_LOOP_HOLD_MS, notLive } from "../../src/ops/readiness.ts";

describe("readiness: every role holds its work", () => {
  it("gives the first role's reason, or null when each is ready", () => {
    expect(firstNotReady([() => null, () => "actors: restoring", () => "indexer: behind"])).toBe(
      "actors: restoring",
    );
    expect(firstNotReady([() => null, () => null])).toBeNull();
    expect(firstNotReady([])).toBeNull();
  });

  it("an indexer is ready once its burner feed caught up and every chain made progress lately", () => {
    const now = 1_000_000;
    const fresh = { chainId: 1, lastBlockAt: now - 5_000 };
    expect(indexerNotReady(true, [fresh], now, 60)).toBeNull();
    expect(indexerNotReady(false, [fresh], now, 60)).toMatch(/burner feed still catching up/);
    expect(indexerNotReady(true, [fresh, { chainId: 2, lastBlockAt: null }], now, 60)).toMatch(/on chain 2$/);
    expect(indexerNotReady(true, [{ chainId: 3, lastBlockAt: now - 61_000 }], now, 60)).toMatch(
      /within 60 s/,
    );
  });
});

describe("liveness: the event loop turns", () => {
  it("is live while no turn was held past the bound, and says how long one was", () => {
    expect(notLive(40)).toBeNull();
    expect(notLive(MAX_EVENT_LOOP_HOLD_MS)).toBeNull();
    expect(notLive(12_345.6)).toBe(`event loop held for 12346 ms (more than ${MAX_EVENT_LOOP_HOLD_MS} ms)`);
  });
});
