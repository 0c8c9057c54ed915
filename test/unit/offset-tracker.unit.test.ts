import { describe, expect, it } from "vitest";
import { createOffsetTracker } from "../../src/kafka/offset-tracker.ts";

describe("offset tracker", () => {
  it("commits below the oldest record still being worked, and past everything once all are done", () => {
    const t = createOffsetTracker();
    for (const o of [5n, 6n, 7n]) t.started(0, o);
    expect(t.done(0, 6n)).toBe(5n); // 5 still works: nothing before it is lost
    expect(t.done(0, 7n)).toBeNull(); // still 5
    expect(t.done(0, 5n)).toBe(8n);
  });

  it("keeps partitions apart: a slow record in one holds back only its own", () => {
    const t = createOffsetTracker();
    t.started(0, 10n);
    t.started(1, 3n);
    t.started(1, 4n);
    expect(t.done(1, 3n)).toBe(4n);
    expect(t.done(1, 4n)).toBe(5n);
    expect(t.done(0, 10n)).toBe(11n);
  });

  it("never moves a partition's commit backwards when records are handed out again after a rebalance", () => {
    const t = createOffsetTracker();
    t.started(2, 1n);
    expect(t.done(2, 1n)).toBe(2n);
    t.started(2, 1n); // re-delivered from an older committed offset
    expect(t.done(2, 1n)).toBeNull();
  });
});
