import { describe, expect, it } from "vitest";
import { afterAttempt, isSuccess, MAX_ATTEMPTS, retryDelayMs } from "../../src/webhooks/schedule.ts";

const NOW = 1_700_000_000_000;

describe("the delivery schedule", () => {
  it("retries a failed attempt at now + 2^attempts s: 1, 2, 4, 8 s, and the fifth failure is final", () => {
    const seen = [1, 2, 3, 4, 5].map((n) => afterAttempt(n, 500, NOW, 1000));
    expect(seen).toEqual([
      { state: "pending", nextRetryAt: NOW + 1000 },
      { state: "pending", nextRetryAt: NOW + 2000 },
      { state: "pending", nextRetryAt: NOW + 4000 },
      { state: "pending", nextRetryAt: NOW + 8000 },
      { state: "failed" },
    ]);
    expect(MAX_ATTEMPTS).toBe(5);
  });

  it("scales with the configured base (tests run it in milliseconds)", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 50))).toEqual([50, 100, 200, 400]);
  });

  it("counts any 2xx as delivered, at any attempt", () => {
    for (const status of [200, 201, 202, 204, 299])
      expect(afterAttempt(MAX_ATTEMPTS, status, NOW, 1000)).toEqual({ state: "delivered" });
  });

  it("counts everything else as a failure: 1xx, redirects, 4xx, 5xx and no answer", () => {
    for (const status of [100, 199, 300, 301, 302, 304, 400, 404, 410, 429, 500, 503, null]) {
      expect(isSuccess(status)).toBe(false);
      expect(afterAttempt(1, status, NOW, 1000)).toEqual({ state: "pending", nextRetryAt: NOW + 1000 });
    }
  });
});
