import { describe, expect, it } from "vitest";
import { ByteArena } from "../../src/support/byte-arena.ts";
import { generator } from "../support/generate.ts";

describe("ByteArena", () => {
  it("gives back every appended byte string intact, across chunk ends and after later appends", () => {
    const g = generator(11);
    const arena = new ByteArena(64);
    const kept: Array<{ at: number; bytes: Buffer }> = [];
    for (let i = 0; i < 2000; i++) {
      // Mostly records smaller than a chunk, some exactly a chunk, some larger (a chunk of their own).
      const size = g.pick([0, 1, 7, 31, 63, 64, 65, 200]);
      const bytes = Buffer.from(Array.from({ length: size }, () => g.int(0, 255)));
      kept.push({ at: arena.append(bytes), bytes });
    }
    for (const { at, bytes } of kept) expect(arena.view(at, bytes.length).equals(bytes)).toBe(true);
    // Never more than a chunk's worth of waste per chunk: the sizes above sum to at most this much.
    const total = kept.reduce((n, k) => n + k.bytes.length, 0);
    expect(arena.reservedBytes).toBeGreaterThanOrEqual(total);
    expect(arena.reservedBytes).toBeLessThan(total * 3);
  });

  it("hands out views, not copies, and refuses a range it never wrote", () => {
    const arena = new ByteArena(16);
    const at = arena.append(Buffer.from("abcdef"));
    expect(arena.view(at, 6).toString()).toBe("abcdef");
    expect(arena.view(at + 2, 3).toString()).toBe("cde");
    expect(() => arena.view(at, 17)).toThrow(RangeError);
    expect(() => arena.view(16 * 5, 1)).toThrow(RangeError);
  });
});
