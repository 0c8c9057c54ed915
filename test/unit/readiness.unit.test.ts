import { describe, expect, it } from "vitest";
import {
  actorsNotReady,
  firstNotReady,
  indexerNotReady,
  MAX_EVENT_LOOP_HOLD_MS,
  notLive,
} from "../../src/ops/readiness.ts";

describe("readiness: every role holds its work", () => {
  it("gives the first role's reason, or null when each is ready", () => {
    expect(firstNotReady([() => null, () => "actors: restoring", () => "indexer: behind"])).toBe(
      "actors: restoring",
    );
    expect(firstNotReady([() => null, () => null])).toBeNull();
    expect(firstNotReady([])).toBeNull();
  });

  it("actors are ready once the start's restore is done and no partition given later is restoring", () => {
    expect(actorsNotReady("session", false, [])).toBe("session actors: partitions still restoring");
    expect(actorsNotReady("session", true, [])).toBeNull();
    // A later rebalance gave this member partitions 3 and 5: not ready until both are restored.
    expect(actorsNotReady("session", true, [3, 5])).toBe("session actors: partitions 3,5 still restoring");
    expect(actorsNotReady("session", true, [3])).toBe("session actors: partition 3 still restoring");
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
