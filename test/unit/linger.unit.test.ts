import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLinger } from "../../src/actors/host/linger.ts";

/** Whether `p` has settled once pending timers up to `ms` have run. */
async function settledWithin(p: Promise<void>, ms: number): Promise<boolean> {
  let settled = false;
  void p.then(() => {
    settled = true;
  });
  await vi.advanceTimersByTimeAsync(ms);
  return settled;
}

describe("a busy partition's linger before its next transaction", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits its bound and no longer", async () => {
    const linger = createLinger(5, 100);
    const wait = linger.wait();
    expect(await settledWithin(wait, 4)).toBe(false);
    expect(await settledWithin(wait, 1)).toBe(true);
  });

  it("ends at once when enough input is waiting, not before", async () => {
    const linger = createLinger(50, 100);
    const wait = linger.wait();
    linger.offer(99);
    expect(await settledWithin(wait, 0)).toBe(false);
    linger.offer(100);
    expect(await settledWithin(wait, 0)).toBe(true);
  });

  it("does not wait at all when the bound is 0", async () => {
    expect(await settledWithin(createLinger(0, 100).wait(), 0)).toBe(true);
  });

  it("ends a wait on release (the partition stops), and an offer with no wait does nothing", async () => {
    const linger = createLinger(1000, 100);
    linger.offer(1000);
    const wait = linger.wait();
    expect(await settledWithin(wait, 10)).toBe(false);
    linger.release();
    expect(await settledWithin(wait, 0)).toBe(true);
  });
});
