import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { json } from "../support/http.ts";
import { startTestService, type TestService } from "../support/service.ts";

const ORIGIN = "https://shop.example";
let service: TestService;

beforeAll(async () => {
  service = await startTestService({
    roles: ["gateway"],
    env: { CORS_ALLOWED_ORIGINS: ORIGIN, RATE_LIMIT_PER_SECOND: "5", RATE_LIMIT_BURST: "60" },
  });
});
afterAll(async () => {
  await service?.stop();
});

const get = () =>
  fetch(`${service.url}/sessions/00000000-0000-4000-8000-000000000000`, { headers: { origin: ORIGIN } });

describe("per-IP token bucket over a real port", () => {
  it("lets 60 quick requests through, refuses the 61st with 429 and CORS headers, refills at 5/s", async () => {
    // The bucket refills while the burst is being sent, so the count before the first refusal is
    // 60 plus one per 200 ms the burst took: exactly 60 when it is fast, never fewer.
    const started = Date.now();
    let passed = 0;
    let refused: Response | null = null;
    while (!refused && passed < 200) {
      const res = await get();
      if (res.status === 429) refused = res;
      else passed++;
    }
    const earned = Math.floor(((Date.now() - started) * 5) / 1000);
    expect(passed).toBeGreaterThanOrEqual(60);
    expect(passed).toBeLessThanOrEqual(60 + earned + 1);
    if (!refused) throw new Error("never refused");
    expect(refused.headers.get("access-control-allow-origin")).toBe(ORIGIN);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(typeof (await json(refused)).error).toBe("string");

    // One token every 200 ms: after a second about five requests pass again, not sixty.
    await new Promise((r) => setTimeout(r, 1000));
    const after = await Promise.all(Array.from({ length: 10 }, () => get()));
    const again = after.filter((r) => r.status !== 429).length;
    expect(again).toBeGreaterThanOrEqual(4);
    expect(again).toBeLessThanOrEqual(6);
  });

  it("GET /health is never rate limited", async () => {
    for (let i = 0; i < 80; i++) expect((await fetch(`${service.url}/health`)).status).not.toBe(429);
  });

  it("a disallowed origin gets no CORS allow header", async () => {
    const res = await fetch(`${service.url}/health`, { headers: { origin: "https://evil.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
  });
});
