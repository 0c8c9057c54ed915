import { describe, expect, it } from "vitest";
import type { Session } from "../../src/domain/types.ts";
import { packStates, stateFromJson, stateToJson, unpackStates } from "../../src/entities/session-json.ts";
import { generator } from "../support/generate.ts";

/** The format as first written: every bigint anywhere as {"$bigint": "<decimal>"}, keys in order. */
const reference = (state: Session) =>
  JSON.stringify(state, (_k, v) => (typeof v === "bigint" ? { $bigint: v.toString() } : v));

describe("session state JSON (snapshots and the read model)", () => {
  it("writes exactly the reference format and reads back the same state", () => {
    const g = generator(31);
    for (let i = 0; i < 500; i++) {
      const state = g.session();
      const json = stateToJson(state);
      expect(json, `session ${i}`).toBe(reference(state));
      expect(stateFromJson(json)).toEqual(state);
    }
  });

  it("packs and unpacks a partition's states", () => {
    const g = generator(32);
    const states = Array.from({ length: 50 }, () => g.session());
    expect(unpackStates(packStates(states))).toEqual(states);
    expect(unpackStates(packStates([]))).toEqual([]);
  });

  it("refuses a bigint it does not know rather than dropping it", () => {
    const state = { ...generator(33).session(), surprise: 1n } as unknown as Session;
    expect(() => stateToJson(state)).toThrow(TypeError);
  });
});
