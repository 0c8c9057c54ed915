import { describe, expect, it } from "vitest";
import { createPartitionActor } from "../../src/actors/partition-actor.ts";
import { BaseError, TerminalError } from "../../src/support/errors.ts";
import { type TallyCommand, type TallyEvent, type TallyState, tallyEntity } from "../support/tally-entity.ts";

const entity = tallyEntity("tally", { commands: "c", events: "e", notices: "n" });
let seq = 0;
const meta = () => ({ commandId: `cmd-${++seq}`, issuedAt: 0 });
const open = (id: string, threshold = 3): TallyCommand => ({
  type: "Open",
  data: { id, threshold, closeAt: 1_000 },
  metadata: meta(),
});
const add = (id: string, amount = 1): TallyCommand => ({
  type: "Add",
  data: { id, amount },
  metadata: meta(),
});

describe("a partition actor (group commit's staging)", () => {
  it("decides a later step on the states an earlier, uncommitted step left", () => {
    const actor = createPartitionActor(entity, 0);
    const first = actor.step([open("a")]);
    const second = actor.step([add("a"), add("a")]);
    expect(second.events.map((e) => e.metadata.version)).toEqual([2, 3]);
    expect(second.dropped).toEqual([]);
    expect(actor.states.size).toBe(0); // nothing committed yet

    actor.commit(first, 0n);
    expect(actor.states.get("a")?.version).toBe(1);
    // The second step, still waiting on its transaction, keeps deciding from its own newer state.
    const third = actor.step([add("a")]);
    expect(third.events.map((e) => e.metadata.version)).toEqual([4]);
    expect(third.outbox.map((r) => JSON.parse(r.value.toString()))).toEqual([
      { id: "a", kind: "reached", total: 3 },
    ]);
  });

  it("forgets everything staged when a transaction fails, and decides again from what is committed", () => {
    const actor = createPartitionActor(entity, 0);
    actor.commit(actor.step([open("b")]), 0n);
    actor.step([add("b", 5)]);
    actor.discardStaged();
    const again = actor.step([add("b", 1)]);
    expect(again.events).toEqual([
      expect.objectContaining({
        type: "Added",
        data: { amount: 1 },
        metadata: expect.objectContaining({ version: 2 }),
      }),
    ]);
  });

  it("drops a refused command nobody waits for, with its code", () => {
    const actor = createPartitionActor(entity, 0);
    const step = actor.step([add("nobody")]);
    expect(step.events).toEqual([]);
    expect(step.dropped).toEqual([{ key: "nobody", type: "Add", code: "not_found" }]);
  });

  it("folds the journal once: an event at or below a state's version is skipped", () => {
    const actor = createPartitionActor(entity, 0);
    const events = actor.step([open("c"), add("c"), add("c")]).events;
    const fresh = createPartitionActor(entity, 0);
    fresh.replay(events, 2n);
    fresh.replay(events.slice(1) as TallyEvent[], 2n); // a snapshot overlapping the journal
    expect(fresh.states.get("c")).toMatchObject({ version: 3, total: 2 });
    expect(fresh.eventsOffset).toBe(2n);
  });

  it("lists the entities whose timer is due, from committed states only", () => {
    const actor = createPartitionActor(entity, 0);
    actor.commit(actor.step([open("d")]), 0n);
    actor.step([open("e")]); // staged, not committed
    expect(actor.due(999)).toEqual([]);
    expect(actor.due(1_000)).toEqual(["d"]);
  });

  it("sets a command whose events cannot be encoded apart, and the others of the step go on", () => {
    // The journal's codec refuses one amount, as a real codec refuses a value its schema cannot hold.
    const poisoned = {
      ...entity,
      journal: {
        ...entity.journal,
        encode: (e: TallyEvent) => {
          if (e.type === "Added" && e.data.amount === 13) throw new TerminalError("encode_failed", "no 13s");
          return entity.journal.encode(e);
        },
      },
    };
    const actor = createPartitionActor(poisoned, 0);
    const step = actor.step([open("p"), add("p", 1), add("p", 13), add("p", 2)]);
    expect(step.failed).toEqual([{ index: 2, error: expect.objectContaining({ code: "encode_failed" }) }]);
    expect(step.events.map((e) => e.metadata.version)).toEqual([1, 2, 3]);
    expect(step.journal).toHaveLength(3);
    actor.commit(step, 2n);
    // The failed command left no state behind: the total skips it, the versions have no gap.
    expect(actor.states.get("p")).toMatchObject({ version: 3, total: 3 });
  });

  it("writes the newest state of each entity a step changed on its changelog; a refused command writes none", () => {
    const withChangelog = {
      ...entity,
      changelog: {
        topic: "tally.state",
        encode: (s: TallyState) => Buffer.from(`${s?.id}@${s?.version}:${s?.total}`),
      },
    };
    const actor = createPartitionActor(withChangelog, 0);
    const step = actor.step([open("x"), add("x", 2), open("y"), add("nobody"), add("x", 3)]);
    expect(Object.fromEntries([...step.changelog].map(([k, v]) => [k, v.toString()]))).toEqual({
      x: "x@3:5",
      y: "y@1:0",
    });
    // Without a changelog the host writes none.
    expect(createPartitionActor(entity, 0).step([open("z")]).changelog.size).toBe(0);
  });

  it("sets a command whose decision throws apart, and rethrows only what says it is retryable", () => {
    const throwing = (error: Error) => ({
      ...entity,
      decider: {
        ...entity.decider,
        decide: (c: TallyCommand, s: Parameters<typeof entity.decider.decide>[1]) => {
          if (c.type === "Add" && c.data.amount === 13) throw error;
          return entity.decider.decide(c, s);
        },
      },
    });
    const actor = createPartitionActor(throwing(new TypeError("a bug")), 0);
    const step = actor.step([open("q"), add("q", 13), add("q", 1)]);
    expect(step.failed.map((f) => f.index)).toEqual([1]);
    expect(step.events.map((e) => e.type)).toEqual(["Opened", "Added"]);

    class Transient extends BaseError {
      readonly code = "transient";
      readonly retryable = true;
    }
    const flaky = createPartitionActor(throwing(new Transient("try again")), 0);
    expect(() => flaky.step([open("r"), add("r", 13)])).toThrow(Transient);
  });
});
