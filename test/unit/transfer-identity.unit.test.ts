import { describe, expect, it } from "vitest";
import { type Hex, sameHex, sameTransfer, type Transfer, transferKey } from "../../src/domain/types.ts";
import { generator } from "../support/generate.ts";

describe("a transfer's identity", () => {
  it("sameTransfer agrees with comparing transferKeys, whatever the letter case of the hashes", () => {
    const g = generator(23);
    const flipCase = (h: Hex): Hex =>
      h.replace(/[0-9a-fA-FxX]/g, (c) => (g.bool() ? c.toUpperCase() : c.toLowerCase())) as Hex;
    let same = 0;
    for (let i = 0; i < 5000; i++) {
      const a: Transfer = g.transfer();
      const b: Transfer = g.pick([
        () => ({ ...a, txHash: flipCase(a.txHash) }), // same transfer, other spelling
        () => ({ ...a, txHash: flipCase(g.hex(32)) }), // another transaction
        () => ({ ...a, logIndex: a.logIndex + 1 }),
        () => ({ ...a, chainId: a.chainId + 1 }),
        () => ({ ...a, txHash: `${a.txHash.slice(0, -1)}${a.txHash.endsWith("0") ? "1" : "0"}` as Hex }),
        () => ({ ...a, txHash: `${a.txHash}00` as Hex }), // longer
      ])();
      const expected = transferKey(a) === transferKey(b);
      expect(sameTransfer(a, b), `${JSON.stringify([a.txHash, b.txHash])}`).toBe(expected);
      if (expected) same++;
    }
    expect(same).toBeGreaterThan(500); // both outcomes were exercised
  });

  it("sameHex ignores letter case only", () => {
    expect(sameHex("0xABCdef09", "0xabcDEF09")).toBe(true);
    expect(sameHex("0xAB", "0xab")).toBe(true);
    expect(sameHex("0xab", "0xac")).toBe(false);
    expect(sameHex("0xab", "0xab0")).toBe(false);
    expect(sameHex("0x", "0x")).toBe(true);
  });
});
