import { describe, expect, it } from "vitest";
import { decodeRecent, encodeRecent } from "../../src/store/indexer-checkpoints.ts";

// The indexer's remembered blocks as the checkpoint row stores them (src/store/indexer-checkpoints.ts).

const block = (n: number) => ({ number: BigInt(n), hash: `h${n}` });

describe("the checkpoint's recent blocks", () => {
  it("keep an EVM chain's contiguous blocks in the compact form, read back as written", () => {
    const recent = [100, 101, 102, 103].map(block);
    const text = encodeRecent(recent);
    expect(JSON.parse(text)).toEqual({ first: "100", hashes: ["h100", "h101", "h102", "h103"] });
    expect(decodeRecent(text)).toEqual(recent);
  });

  it("keep each slot's number when slots are skipped, so no hash is read back under another slot", () => {
    // Measured on the local Solana node: empty slots are not listed, so the history has gaps.
    const recent = [9300, 9301, 9305, 9552, 9563, 9566].map(block);
    expect(decodeRecent(encodeRecent(recent))).toEqual(recent);
  });

  it("read a row written before slot numbers were stored as before", () => {
    expect(decodeRecent(JSON.stringify({ first: "7", hashes: ["a", "b"] }))).toEqual([
      { number: 7n, hash: "a" },
      { number: 8n, hash: "b" },
    ]);
    expect(decodeRecent(null)).toEqual([]);
  });
});
