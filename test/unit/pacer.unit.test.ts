import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createPacer } from "../../src/support/pacer.ts";

describe("createPacer: one budget of calls per second", () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  /** When each of `n` callers asking at once got its turn, ms after they asked. */
  async function turnsOf(perSecond: number, n: number): Promise<number[]> {
    const pacer = createPacer(perSecond);
    const asked = Date.now();
    const at: number[] = [];
    const turns = Array.from({ length: n }, () => pacer.turn().then(() => at.push(Date.now() - asked)));
    await vi.runAllTimersAsync();
    await Promise.all(turns);
    return at;
  }

  it("hands out turns in the order asked, 1/perSecond apart, the first at once", async () => {
    expect(await turnsOf(10, 4)).toEqual([0, 100, 200, 300]);
    expect(await turnsOf(4, 3)).toEqual([0, 250, 500]);
  });

  it("a caller after a quiet spell goes at once: unused turns are not saved up", async () => {
    const pacer = createPacer(10);
    await pacer.turn();
    await vi.advanceTimersByTimeAsync(5_000);
    const asked = Date.now();
    await pacer.turn();
    const second = pacer.turn().then(() => Date.now() - asked);
    await vi.runAllTimersAsync();
    expect(await second).toBe(100);
  });

  it("an aborted wait rejects with the signal's reason", async () => {
    const pacer = createPacer(1);
    await pacer.turn();
    const abort = new AbortController();
    const waiting = pacer.turn(abort.signal);
    abort.abort(new Error("stopping"));
    await expect(waiting).rejects.toThrow("stopping");
  });

  it("refuses a rate that is not positive", () => {
    expect(() => createPacer(0)).toThrow(RangeError);
    expect(() => createPacer(Number.NaN)).toThrow(RangeError);
  });
});
