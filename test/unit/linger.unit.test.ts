import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLinger, lingerMs } from "../../src/actors/host/linger.ts";

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
    const wait = linger.wait(0);
    expect(await settledWithin(wait, 4)).toBe(false);
    expect(await settledWithin(wait, 1)).toBe(true);
  });

  it("ends at once when enough input is waiting, not before", async () => {
    const linger = createLinger(50, 100);
    const wait = linger.wait(0);
    linger.offer(99);
    expect(await settledWithin(wait, 0)).toBe(false);
    linger.offer(100);
    expect(await settledWithin(wait, 0)).toBe(true);
  });

  it("does not wait at all when the bound is 0", async () => {
    expect(await settledWithin(createLinger(0, 100).wait(0), 0)).toBe(true);
  });

  it("ends a wait on release (the partition stops), and an offer with no wait does nothing", async () => {
    const linger = createLinger(1000, 100);
    linger.offer(1000);
    const wait = linger.wait(0);
    expect(await settledWithin(wait, 10)).toBe(false);
    linger.release();
    expect(await settledWithin(wait, 0)).toBe(true);
  });

  it.each([
    { last: 30, waits: 30 },
    { last: 200, waits: 50 },
    { last: 1, waits: 5 },
  ])("after a transaction of $last ms waits $waits ms (least 5, most 50)", async ({ last, waits }) => {
    const wait = createLinger(5, 100, 50).wait(last);
    expect(await settledWithin(wait, waits - 1)).toBe(false);
    expect(await settledWithin(wait, 1)).toBe(true);
  });

  it("ends a long wait under load once the partition is full", async () => {
    const linger = createLinger(5, 100, 50);
    const slow = linger.wait(40);
    linger.offer(100);
    expect(await settledWithin(slow, 0)).toBe(true);
  });
});

describe("the linger's bound", () => {
  it("follows the last transaction between the least and the most", () => {
    expect(lingerMs(5, 50, 2)).toBe(5);
    expect(lingerMs(5, 50, 17.4)).toBe(17);
    expect(lingerMs(5, 50, 80)).toBe(50);
  });

  it("is fixed when the most is not above the least, and 0 turns lingering off", () => {
    expect(lingerMs(5, 5, 80)).toBe(5);
    expect(lingerMs(5, 0, 80)).toBe(5);
    expect(lingerMs(0, 50, 80)).toBe(0);
  });
});
