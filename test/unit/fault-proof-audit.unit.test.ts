// The fault proof's count (test/support/fault-proof/audit.ts) can fail: a clean run counts no
// problem, and each kind of loss or doubling the e2e form guards against, planted in otherwise clean
// observations, is named. Pure code: no servers.
import { describe, expect, it } from "vitest";
import { count, type Observed } from "../support/fault-proof/audit.ts";

const burner = (n: number) => `0x${n.toString(16).padStart(40, "a")}` as `0x${string}`;

/** Two commits and a refund, each seen exactly once everywhere. */
function clean(): Observed {
  const flows = [
    { id: "s1", kind: "commit" as const, step: "done", burner: burner(1) },
    { id: "s2", kind: "commit" as const, step: "done", burner: burner(2) },
    { id: "s3", kind: "refund" as const, step: "done", burner: burner(3) },
  ];
  const journal = (id: string, last: string) =>
    ["SessionOpened", "DepositDetected", last].map((type, i) => ({ sessionId: id, version: i + 1, type }));
  const keys = ["s1:payment.settled", "s2:payment.settled", "s3:payment.refunded"];
  return {
    flows,
    events: [
      ...journal("s1", "SweepCompleted"),
      ...journal("s2", "SweepCompleted"),
      ...journal("s3", "RefundUpdated"),
    ],
    commandIds: ["c1", "c2", "c3"],
    results: ["c1", "c2", "c3"].flatMap((commandId) => [
      { commandId, final: false },
      { commandId, final: true },
    ]),
    webhookKeys: keys,
    received: keys,
    txsOf: new Map(flows.map((f, i) => [f.burner.toLowerCase(), new Set([`0xtx${i}`])])),
  };
}

describe("the fault proof's count", () => {
  it("finds nothing wrong in a clean run, and counts it", () => {
    const { problems, figures } = count(clean());
    expect(problems).toEqual([]);
    expect(figures).toMatchObject({ sessions: 3, events: 9, executorCommands: 3, chainTransactions: 3 });
    expect(figures.webhookRedeliveries).toBe(0);
  });

  it("accepts a redelivered webhook (at least once, by its key) and counts it apart", () => {
    const o = clean();
    const { problems, figures } = count({ ...o, received: [...o.received, o.received[0] as string] });
    expect(problems).toEqual([]);
    expect(figures.webhookRedeliveries).toBe(1);
  });

  const broken: Array<[string, (o: Observed) => Observed, RegExp]> = [
    [
      "a doubled journal event",
      (o) => ({ ...o, events: [...o.events, { sessionId: "s1", version: 2, type: "DepositDetected" }] }),
      /session s1: journal versions 1,2,2,3/,
    ],
    [
      "a lost journal event",
      (o) => ({ ...o, events: o.events.filter((e) => !(e.sessionId === "s2" && e.version === 2)) }),
      /session s2: journal versions 1,3/,
    ],
    [
      "a session answered 200 with no journal",
      (o) => ({
        ...o,
        flows: o.flows.map((f) => (f.id === "s3" ? { ...f, step: "created" } : f)),
        events: o.events.filter((e) => e.sessionId !== "s3"),
      }),
      /session s3: answered 200 but no journal/,
    ],
    [
      "a doubled executor command",
      (o) => ({ ...o, commandIds: [...o.commandIds, "c2"] }),
      /command doubled: c2 x2/,
    ],
    [
      "an executor command that never ended",
      (o) => ({ ...o, results: o.results.filter((r) => r.commandId !== "c2" || !r.final) }),
      /executor command never ended: c2/,
    ],
    [
      "a doubled webhook on the outbox",
      (o) => ({ ...o, webhookKeys: [...o.webhookKeys, "s1:payment.settled"] }),
      /webhook event doubled: s1:payment.settled x2/,
    ],
    [
      "a queued webhook never delivered",
      (o) => ({ ...o, received: o.received.slice(1) }),
      /webhook never delivered: s1:payment.settled/,
    ],
    [
      "a webhook delivered that was never queued",
      (o) => ({ ...o, received: [...o.received, "s9:payment.settled"] }),
      /delivered but never queued: s9:payment.settled/,
    ],
    [
      "a deposit moved twice on chain",
      (o) => ({ ...o, txsOf: new Map([...o.txsOf, [burner(2).toLowerCase(), new Set(["0xa", "0xb"])]]) }),
      /burner 0x\w+: 2 transactions moved its deposit/,
    ],
    [
      "a finished deposit never moved",
      (o) => ({ ...o, txsOf: new Map([...o.txsOf].filter(([b]) => b !== burner(1).toLowerCase())) }),
      /burner 0x\w+: 0 transactions moved its deposit/,
    ],
    [
      "a settled session with two SweepCompleted",
      (o) => ({
        ...o,
        events: [...o.events, { sessionId: "s1", version: 4, type: "SweepCompleted" }],
      }),
      /session s1: 2 SweepCompleted events/,
    ],
    [
      "a refunded session with no RefundUpdated",
      (o) => ({
        ...o,
        events: o.events.map((e) => (e.type === "RefundUpdated" ? { ...e, type: "Other" } : e)),
      }),
      /session s3: refund done but no RefundUpdated/,
    ],
  ];
  it.each(broken)("names %s", (_, breakIt, problem) => {
    const { problems } = count(breakIt(clean()));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });
});
