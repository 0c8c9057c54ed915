import { describe, expect, it } from "vitest";
import { evolve } from "../../src/domain/evolve.ts";
import type { Session } from "../../src/domain/types.ts";
import { addSummaries, type FoldedJournal, summarize } from "../../src/projections/journal-fold.ts";
import { generator } from "../support/generate.ts";

/** States of `count` generated sessions, each created and then given its generated deposits. */
function folded(seed: number, count: number): FoldedJournal {
  const g = generator(seed);
  const states = new Map<string, Session>();
  let events = 0;
  for (let i = 0; i < count; i++) {
    const s = g.session();
    states.set(s.id, s);
    events += s.version;
  }
  return { states, events };
}

describe("a replay's summary of its states", () => {
  it("counts sessions, deposits, amounts, versions and statuses", () => {
    const f = folded(7, 50);
    const s = summarize(f);
    const all = [...f.states.values()];
    expect(s.sessions).toBe(all.length);
    expect(s.events).toBe(f.events);
    expect(s.deposits).toBe(all.reduce((n, x) => n + x.deposits.length, 0));
    expect(BigInt(s.depositedAmount)).toBe(
      all.reduce((n, x) => n + x.deposits.reduce((m, d) => m + d.amount, 0n), 0n),
    );
    expect(s.versions).toBe(all.reduce((n, x) => n + x.version, 0));
    expect(Object.values(s.byStatus).reduce((a, b) => a + b, 0)).toBe(all.length);
  });

  it("of two disjoint partitions adds up to the summary of their union", () => {
    const a = folded(1, 30);
    const b = folded(2, 40);
    const union: FoldedJournal = { states: new Map([...a.states, ...b.states]), events: a.events + b.events };
    expect(addSummaries(summarize(a), summarize(b))).toEqual(summarize(union));
  });

  it("tells apart states that differ in one deposit", () => {
    const f = folded(3, 20);
    const [id, state] = [...f.states].find(([, s]) => s.status !== "expired") ?? [];
    if (!id || !state) throw new Error("generator gave no live session");
    const transfer = generator(99).transfer();
    const changed = evolve(state, {
      type: "DepositObserved",
      data: { transfer: { ...transfer, amount: 12345n }, finality: null },
      metadata: { sessionId: id, version: state.version + 1, occurredAt: state.updatedAt, commandId: "c" },
    });
    const other: FoldedJournal = {
      states: new Map(f.states).set(id, changed as Session),
      events: f.events + 1,
    };
    expect(summarize(other)).not.toEqual(summarize(f));
  });
});
