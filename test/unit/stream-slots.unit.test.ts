import { describe, expect, it } from "vitest";
import { createStreamSlots } from "../../src/gateway/stream-slots.ts";

// The per-client count of open event streams, with the clock in the test's hands.

describe("stream slots", () => {
  it("gives a client maxPerClient slots, then says when its oldest ends by its lifetime", () => {
    let t = 1_000_000;
    const slots = createStreamSlots({ maxPerClient: 2, lifetimeMs: 60_000, now: () => t });
    const a = slots.acquire("10.0.0.1");
    t += 20_000;
    const b = slots.acquire("10.0.0.1");
    expect([a.ok, b.ok]).toEqual([true, true]);
    t += 5_000;
    expect(slots.acquire("10.0.0.1")).toEqual({ ok: false, retryAfterSeconds: 35 });
    // Another client is counted apart.
    expect(slots.acquire("10.0.0.2").ok).toBe(true);
    if (a.ok) a.release();
    expect(slots.openBy("10.0.0.1")).toBe(1);
    expect(slots.acquire("10.0.0.1").ok).toBe(true);
  });

  it("frees a slot once however often it is released, and forgets a client with none open", () => {
    const slots = createStreamSlots({ maxPerClient: 1, lifetimeMs: 1000 });
    const a = slots.acquire("c");
    if (!a.ok) throw new Error("refused");
    a.release();
    a.release();
    expect(slots.openBy("c")).toBe(0);
    const b = slots.acquire("c");
    const c = slots.acquire("c");
    expect([b.ok, c.ok]).toEqual([true, false]);
    a.release(); // a stale release must not free b's slot
    expect(slots.openBy("c")).toBe(1);
  });

  it("never answers a Retry-After below one second", () => {
    let t = 0;
    const slots = createStreamSlots({ maxPerClient: 1, lifetimeMs: 1000, now: () => t });
    slots.acquire("c");
    t = 5000; // past the lifetime, the stream's end is due now
    expect(slots.acquire("c")).toEqual({ ok: false, retryAfterSeconds: 1 });
  });
});
