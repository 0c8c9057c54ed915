import { describe, expect, it } from "vitest";
import { eachConcurrently } from "../support/concurrently.ts";

describe("eachConcurrently (test support)", () => {
  it("calls each item once, never more than `width` at a time", async () => {
    const seen: number[] = [];
    let inFlight = 0;
    let most = 0;
    await eachConcurrently(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (i) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, i % 3));
        seen.push(i);
        inFlight--;
      },
    );
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(most).toBe(4);
  });

  it("rejects with a call's failure", async () => {
    await expect(
      eachConcurrently([1, 2, 3], 2, async (i) => {
        if (i === 2) throw new Error("two failed");
      }),
    ).rejects.toThrow("two failed");
  });
});
