import { describe, expect, it } from "vitest";
import { sameId, sameTransfer, type Transfer, transferKey } from "../../src/domain/types.ts";
import { generator } from "../support/generate.ts";

describe("a transfer's identity", () => {
  it("sameTransfer agrees with comparing transferKeys, whatever the letter case of the hashes", () => {
    const g = generator(23);
    const flipCase = (h: string): string =>
      h.replace(/[0-9a-fA-FxX]/g, (c) => (g.bool() ? c.toUpperCase() : c.toLowerCase()));
    let same = 0;
    for (let i = 0; i < 5000; i++) {
      const a: Transfer = g.transfer();
      const b: Transfer = g.pick([
        () => ({ ...a, txHash: flipCase(a.txHash) }), // same transfer, other spelling
        () => ({ ...a, txHash: flipCase(g.hex(32)) }), // another transaction
        () => ({ ...a, logIndex: a.logIndex + 1 }),
        () => ({ ...a, chainId: a.chainId + 1 }),
        () => ({ ...a, txHash: `${a.txHash.slice(0, -1)}${a.txHash.endsWith("0") ? "1" : "0"}` }),
        () => ({ ...a, txHash: `${a.txHash}00` }), // longer
      ])();
      const expected = transferKey(a) === transferKey(b);
      expect(sameTransfer(a, b), `${JSON.stringify([a.txHash, b.txHash])}`).toBe(expected);
      if (expected) same++;
    }
    expect(same).toBeGreaterThan(500); // both outcomes were exercised
  });

  it("sameId ignores letter case only", () => {
    expect(sameId("0xABCdef09", "0xabcDEF09")).toBe(true);
    expect(sameId("0xAB", "0xab")).toBe(true);
    expect(sameId("0xab", "0xac")).toBe(false);
    expect(sameId("0xab", "0xab0")).toBe(false);
    expect(sameId("0x", "0x")).toBe(true);
  });

  it("sameId compares ids of other spellings exactly: base58 tells 'a' from 'A'", () => {
    const sig = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW";
    const other = `${sig.slice(0, -1)}w`; // the same letter in the other case: another signature
    expect(sameId(sig, sig)).toBe(true);
    expect(sameId(sig, other)).toBe(false);
    expect(sameId("AbC", "abc")).toBe(false);
    // transferKey draws the same line, so the indexer's dedup and the decider's agree
    const t: Transfer = { ...generator(5).transfer(), txHash: sig };
    expect(sameTransfer(t, { ...t, txHash: other })).toBe(false);
    expect(transferKey(t) === transferKey({ ...t, txHash: other })).toBe(false);
    expect(sameTransfer(t, { ...t })).toBe(true);
  });
});
