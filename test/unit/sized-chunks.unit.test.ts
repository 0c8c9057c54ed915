import { describe, expect, it } from "vitest";
import { sizedChunks } from "../../src/support/chunks.ts";

describe("cutting items into runs of at most a size", () => {
  const size = (s: string) => s.length;

  it("keeps the order and fills each run up to the limit", () => {
    expect(sizedChunks(["aa", "bb", "cc", "d"], size, 4)).toEqual([
      ["aa", "bb"],
      ["cc", "d"],
    ]);
  });

  it("sends an item over the limit alone rather than refusing it", () => {
    expect(sizedChunks(["a", "bbbbbb", "c"], size, 4)).toEqual([["a"], ["bbbbbb"], ["c"]]);
  });

  it("makes no run of nothing", () => {
    expect(sizedChunks([], size, 4)).toEqual([]);
  });
});
