import { afterEach, describe, expect, it } from "vitest";
import { createRetryScheduler } from "../../src/webhooks/scheduler.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stop: () => void = () => {};
afterEach(() => stop());

describe("the retry scheduler", () => {
  it("scans at start, then every pollMs", async () => {
    let scans = 0;
    const s = createRetryScheduler({ pollMs: 100, onError: () => {}, scan: async () => void scans++ });
    stop = s.stop;
    s.start();
    await sleep(20);
    expect(scans).toBe(1);
    await sleep(230);
    // Two more polls at ~100 and ~200 ms; a loaded machine may run the second late.
    expect(scans).toBeGreaterThanOrEqual(2);
    expect(scans).toBeLessThanOrEqual(3);
  });

  it("scans early when woken for a known due time, and a later wake does not delay it", async () => {
    const at: number[] = [];
    const s = createRetryScheduler({
      pollMs: 10_000,
      onError: () => {},
      scan: async () => void at.push(Date.now()),
    });
    stop = s.stop;
    s.start();
    await sleep(10);
    const t0 = Date.now();
    s.wakeAt(t0 + 60);
    s.wakeAt(t0 + 5_000);
    await sleep(400);
    expect(at).toHaveLength(2);
    expect((at[1] as number) - t0).toBeGreaterThanOrEqual(55);
  });

  it("never runs two scans at once: a wake during a scan becomes one scan after it", async () => {
    let running = 0;
    let most = 0;
    let scans = 0;
    const s = createRetryScheduler({
      pollMs: 10_000,
      onError: () => {},
      async scan() {
        running++;
        most = Math.max(most, running);
        scans++;
        await sleep(50);
        running--;
      },
    });
    stop = s.stop;
    s.start();
    await sleep(10);
    s.wakeAt(Date.now());
    s.wakeAt(Date.now() + 1);
    await sleep(400);
    expect(most).toBe(1);
    expect(scans).toBe(2);
  });

  it("keeps scanning after a failed scan, and says so", async () => {
    const errors: unknown[] = [];
    let scans = 0;
    const s = createRetryScheduler({
      pollMs: 50,
      onError: (e) => errors.push(e),
      async scan() {
        scans++;
        if (scans === 1) throw new Error("ledger down");
      },
    });
    stop = s.stop;
    s.start();
    await sleep(300);
    expect(errors).toHaveLength(1);
    expect(scans).toBeGreaterThanOrEqual(2);
  });

  it("does nothing once stopped", async () => {
    let scans = 0;
    const s = createRetryScheduler({ pollMs: 20, onError: () => {}, scan: async () => void scans++ });
    s.start();
    await sleep(5);
    s.stop();
    const seen = scans;
    s.wakeAt(Date.now());
    await sleep(80);
    expect(scans).toBe(seen);
  });
});
