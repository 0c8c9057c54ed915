import { describe, expect, it } from "vitest";
import { clientKey, createRateLimiter } from "../../src/gateway/rate-limit.ts";

function limiter(options: { maxBuckets?: number } = {}) {
  let now = 1_000_000;
  const rl = createRateLimiter({ ratePerSecond: 5, burst: 60, now: () => now, ...options });
  return {
    rl,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const takeMany = (rl: ReturnType<typeof createRateLimiter>, key: string, n: number) =>
  Array.from({ length: n }, () => rl.take(key).allowed);

describe("token bucket", () => {
  it("lets a burst of 60 through and refuses the 61st", () => {
    const { rl } = limiter();
    expect(takeMany(rl, "a", 60).every(Boolean)).toBe(true);
    const refused = rl.take("a");
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("refills one token every 200 ms (5 per second)", () => {
    const { rl, advance } = limiter();
    takeMany(rl, "a", 60);
    advance(199);
    expect(rl.take("a").allowed).toBe(false);
    advance(1);
    expect(rl.take("a").allowed).toBe(true);
    expect(rl.take("a").allowed).toBe(false);
    advance(1000);
    expect(takeMany(rl, "a", 6)).toEqual([true, true, true, true, true, false]);
  });

  it("sustains 5 requests per second indefinitely", () => {
    const { rl, advance } = limiter();
    takeMany(rl, "a", 60);
    for (let second = 0; second < 30; second++) {
      advance(1000);
      expect(takeMany(rl, "a", 5).every(Boolean)).toBe(true);
      expect(rl.take("a").allowed).toBe(false);
    }
  });

  it("never holds more than the burst, however long the client was idle", () => {
    const { rl, advance } = limiter();
    advance(3_600_000);
    expect(takeMany(rl, "a", 61).filter(Boolean)).toHaveLength(60);
  });

  it("keeps one bucket per client", () => {
    const { rl } = limiter();
    takeMany(rl, "a", 60);
    expect(rl.take("a").allowed).toBe(false);
    expect(rl.take("b").allowed).toBe(true);
  });

  it("rounds Retry-After up to whole seconds", () => {
    const { rl, advance } = limiter();
    takeMany(rl, "a", 60);
    advance(100); // half a token
    expect(rl.take("a")).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("forgets buckets that have refilled, so idle clients cost no memory", () => {
    const { rl, advance } = limiter();
    for (let i = 0; i < 1000; i++) rl.take(`client-${i}`);
    expect(rl.size()).toBe(1000);
    advance(12_000); // 60 tokens at 5/s: every bucket is full again
    rl.take("late");
    expect(rl.size()).toBe(1);
  });

  it("never tracks more than maxBuckets clients", () => {
    const { rl } = limiter({ maxBuckets: 100 });
    for (let i = 0; i < 10_000; i++) rl.take(`client-${i}`);
    expect(rl.size()).toBe(100);
  });
});

describe("client key", () => {
  it.each([
    ["203.0.113.7", "203.0.113.7"],
    ["::ffff:203.0.113.7", "203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002::1", "2001:db8:1:2::/64"],
    ["2001:db8::1", "2001:db8:0:0::/64"],
    ["::1", "0:0:0:0::/64"],
    ["::", "0:0:0:0::/64"],
    ["fe80::1%eth0", "fe80:0:0:0::/64"],
    ["64:ff9b::192.0.2.33", "64:ff9b:0:0::/64"],
  ])("keys %s as %s", (ip, key) => {
    expect(clientKey(ip)).toBe(key);
  });
});
