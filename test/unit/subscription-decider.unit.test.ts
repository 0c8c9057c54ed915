import { describe, expect, it } from "vitest";
import { decideSubscription, evolveSubscription } from "../../src/domain/subscription/decider.ts";
import { chargeDueAt, currentPeriod, retryDelayMs } from "../../src/domain/subscription/periods.ts";
import type {
  CancelSource,
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionState,
  SubscriptionWebhook,
} from "../../src/domain/subscription/types.ts";
import { SUBSCRIPTION_ID, termsFixture } from "../support/subscriptions.ts";

const ID = SUBSCRIPTION_ID;
const START = 1_800_000_000; // unix s
const PERIOD = 60; // s
const at = (period: number, seconds = 0) => (START + period * PERIOD + seconds) * 1000;
let seq = 0;
const meta = (issuedAt: number, commandId = `c${++seq}`) => ({ commandId, issuedAt, replyTo: null });

const create = (commandId = "create-1"): SubscriptionCommand => ({
  type: "CreateSubscription",
  data: { subscriptionId: ID, ...termsFixture({ period: PERIOD, start: START }) },
  metadata: { commandId, issuedAt: at(0, -100), replyTo: { gatewayId: "g", correlationId: "k" } },
});
const due = (now: number): SubscriptionCommand => ({
  type: "ChargeDue",
  data: { subscriptionId: ID, now },
  metadata: meta(now),
});
const result = (
  periodIndex: number,
  attempt: number,
  outcome: { txHash: `0x${string}` } | { error: string },
  now = at(periodIndex, 5),
): SubscriptionCommand => ({
  type: "RecordChargeResult",
  data: {
    subscriptionId: ID,
    periodIndex,
    attempt,
    txHash: "txHash" in outcome ? outcome.txHash : null,
    errorMessage: "error" in outcome ? outcome.error : null,
  },
  metadata: meta(now),
});
const cancel = (source: CancelSource, merchantId: string | null = null): SubscriptionCommand => ({
  type: "CancelSubscription",
  data: { subscriptionId: ID, source, merchantId, signature: null, txHash: null },
  metadata: meta(at(0, 30)),
});

/** Runs commands in order, folding accepted events; returns the state and every decision. */
function run(...commands: SubscriptionCommand[]) {
  let state: SubscriptionState = null;
  const decisions = commands.map((c) => {
    const d = decideSubscription(c, state);
    if (d.ok) state = d.events.reduce(evolveSubscription, state);
    return d;
  });
  const last = decisions[decisions.length - 1];
  if (!last) throw new Error("no command");
  return { state: state as SubscriptionState, decisions, last };
}
const eventsOf = (d: ReturnType<typeof decideSubscription>): SubscriptionEvent["type"][] =>
  d.ok ? d.events.map((e) => e.type) : [];
const webhooks = (d: ReturnType<typeof decideSubscription>) =>
  d.outbox.filter((m): m is SubscriptionWebhook => m.type === "Webhook").map((m) => m.data);

describe("a new subscription", () => {
  it("is created with subscription.created keyed sub:<id>:created and a reply", () => {
    const { last, state } = run(create());
    expect(eventsOf(last)).toEqual(["SubscriptionCreated"]);
    expect(webhooks(last)).toMatchObject([
      { merchantId: "m_1", eventType: "subscription.created", idempotencyKey: `sub:${ID}:created` },
    ]);
    expect(last.outbox.some((m) => m.type === "Reply")).toBe(true);
    expect(state).toMatchObject({ status: "active", periodIndex: 0, attempts: 0, lastChargedPeriod: -1 });
  });

  it("refuses a second registration of the same mandate (409) but accepts a retry of the same command", () => {
    const again = run(create("create-1"), create("create-2")).last;
    expect(again.ok ? null : again.rejection.code).toBe("subscription_exists");
    expect(again.outbox).toMatchObject([
      { type: "Reply", data: { rejection: { code: "subscription_exists" } } },
    ]);
    const retry = run(create("create-1"), create("create-1")).last;
    expect(retry.ok && retry.events).toEqual([]);
  });

  it("refuses anything but creation while it does not exist", () => {
    for (const c of [cancel("merchant", "m_1"), due(at(0)), result(0, 1, { txHash: "0xab" })]) {
      const d = decideSubscription(c, null);
      expect(d.ok ? null : d.rejection.code).toBe("subscription_not_found");
    }
  });
});

describe("charging", () => {
  it("is due at the start of period 0, and not before it", () => {
    const { state } = run(create());
    expect(chargeDueAt(state)).toBe(at(0));
    expect(eventsOf(run(create(), due(at(0, -1))).last)).toEqual([]);
  });

  it("sends one attempt to the executor at a period's start and nothing more while it is in flight", () => {
    const { decisions, state } = run(create(), due(at(0, 1)), due(at(0, 2)));
    expect(eventsOf(decisions[1] as never)).toEqual(["ChargeRequested"]);
    expect((decisions[1] as { outbox: unknown[] }).outbox).toMatchObject([
      {
        type: "Charge",
        data: { periodIndex: 0, attempt: 1, commandId: `sub:${ID}:charge:0:1`, feeBps: 80, chainId: 31337 },
      },
    ]);
    expect(eventsOf(decisions[2] as never)).toEqual([]);
    expect(chargeDueAt(state)).toBeNull();
  });

  it("records a confirmed charge with subscription.charged and its payload, then waits for the next period", () => {
    const { last, state } = run(create(), due(at(0)), result(0, 1, { txHash: "0xfeed" }));
    expect(eventsOf(last)).toEqual(["SubscriptionCharged"]);
    expect(webhooks(last)).toEqual([
      {
        merchantId: "m_1",
        eventType: "subscription.charged",
        idempotencyKey: `sub:${ID}:charged:0`,
        createdAt: at(0, 5),
        body: {
          subscription_id: ID,
          event_type: "subscription.charged",
          amount: "10000000",
          fee_bps: 80,
          app_fee_bps: 25,
          app_fee_recipient: "0x5555555555555555555555555555555555555555",
          tx_hash: "0xfeed",
          period_index: 0,
        },
      },
    ]);
    expect(chargeDueAt(state)).toBe(at(1));
    expect(
      eventsOf(run(create(), due(at(0)), result(0, 1, { txHash: "0xfeed" }), due(at(0, 30))).last),
    ).toEqual([]);
  });

  it("charges three periods in a row", () => {
    const { state } = run(
      create(),
      due(at(0)),
      result(0, 1, { txHash: "0x01" }),
      due(at(1)),
      result(1, 1, { txHash: "0x02" }),
      due(at(2)),
      result(2, 1, { txHash: "0x03" }),
    );
    expect(state).toMatchObject({ lastChargedPeriod: 2, periodIndex: 2, inFlight: false });
  });

  it("retries a failed period after the retry delay, at most three attempts, one charge_failed each", () => {
    const delay = retryDelayMs({ period: PERIOD });
    const fail = (attempt: number, t: number) =>
      result(0, attempt, { error: "ERC20InsufficientAllowance" }, t);
    const t1 = at(0, 1);
    const { decisions, state } = run(
      create(),
      due(t1),
      fail(1, t1),
      due(t1 + delay - 1), // too early: nothing
      due(t1 + delay),
      fail(2, t1 + delay),
      due(t1 + 2 * delay),
      fail(3, t1 + 2 * delay),
      due(t1 + 3 * delay), // out of attempts
    );
    const failed = decisions.flatMap(webhooks).filter((w) => w.eventType === "subscription.charge_failed");
    expect(failed.map((w) => w.idempotencyKey)).toEqual(
      [1, 2, 3].map((a) => `sub:${ID}:charge_failed:0:${a}`),
    );
    expect(failed[0]?.body).toEqual({
      subscription_id: ID,
      event_type: "subscription.charge_failed",
      error_message: "ERC20InsufficientAllowance",
      period_index: 0,
      attempt: 1,
    });
    expect(eventsOf(decisions[3] as never)).toEqual([]);
    expect(eventsOf(decisions[8] as never)).toEqual([]);
    expect(state).toMatchObject({ attempts: 3, inFlight: false });
    // the next period starts over with attempt 1
    expect(chargeDueAt(state)).toBe(at(1));
    const next = run(...decisionsCommands(), due(at(1))).last;
    expect(next.ok && next.events[0]?.data).toEqual({ periodIndex: 1, attempt: 1 });

    function decisionsCommands() {
      return [
        create(),
        due(t1),
        fail(1, t1),
        due(t1 + delay),
        fail(2, t1 + delay),
        due(t1 + 2 * delay),
        fail(3, t1 + 2 * delay),
      ];
    }
  });

  it("ignores a result that is not the attempt in flight (a re-sent or stale result)", () => {
    const twice = run(
      create(),
      due(at(0)),
      result(0, 1, { txHash: "0x01" }),
      result(0, 1, { txHash: "0x01" }),
    );
    expect(eventsOf(twice.last)).toEqual([]);
    expect(eventsOf(run(create(), due(at(0)), result(0, 2, { txHash: "0x01" })).last)).toEqual([]);
  });

  it("skips periods nobody charged (the service was down) and charges the current one", () => {
    const { last } = run(create(), due(at(0)), result(0, 1, { txHash: "0x01" }), due(at(5, 3)));
    expect(last.ok && last.events[0]?.data).toEqual({ periodIndex: 5, attempt: 1 });
    expect(currentPeriod({ start: START, period: PERIOD }, at(5, 59))).toBe(5);
  });
});

describe("canceling", () => {
  it("emits one subscription.canceled whichever of the three paths comes first", () => {
    for (const first of ["merchant", "payer", "chain"] as const) {
      const others = (["merchant", "payer", "chain"] as const).filter((s) => s !== first);
      const { decisions, state } = run(
        create(),
        cancel(first, "m_1"),
        ...others.map((s) => cancel(s, "m_1")),
      );
      const canceled = decisions.flatMap(webhooks).filter((w) => w.eventType === "subscription.canceled");
      expect(canceled.map((w) => w.idempotencyKey)).toEqual([`sub:${ID}:canceled`]);
      expect(canceled[0]?.body).toMatchObject({ canceled_by: first });
      expect(decisions.slice(2).every((d) => d.ok && d.events.length === 0)).toBe(true);
      expect(state).toMatchObject({ status: "canceled", canceledBy: first });
    }
  });

  it("relays the payer's signed Cancel on chain, also after a merchant cancel, never after the chain's", () => {
    const payerCancel: SubscriptionCommand = {
      type: "CancelSubscription",
      data: {
        subscriptionId: ID,
        source: "payer",
        merchantId: null,
        signature: `0x${"ef".repeat(65)}`,
        txHash: null,
      },
      metadata: meta(at(0, 40)),
    };
    const relays = (d: ReturnType<typeof decideSubscription>) =>
      d.outbox.filter((m) => m.type === "RelayCancel");
    expect(relays(run(create(), payerCancel).last)).toMatchObject([
      { data: { subscriptionId: ID, chainId: 31337, signature: `0x${"ef".repeat(65)}` } },
    ]);
    expect(relays(run(create(), cancel("merchant", "m_1"), payerCancel).last)).toHaveLength(1);
    expect(relays(run(create(), cancel("chain"), payerCancel).last)).toEqual([]);
    expect(relays(run(create(), cancel("merchant", "m_1")).last)).toEqual([]);
  });

  it("answers another merchant's cancel as not found", () => {
    const d = run(create(), cancel("merchant", "m_other")).last;
    expect(d.ok ? null : d.rejection.code).toBe("subscription_not_found");
  });

  it("charges nothing after a cancel, and has no timer", () => {
    const { last, state } = run(create(), cancel("payer"), due(at(0)));
    expect(eventsOf(last)).toEqual([]);
    expect(chargeDueAt(state)).toBeNull();
  });

  it("still records a charge that was in flight when it was canceled: the money moved", () => {
    const { last } = run(create(), due(at(0)), cancel("merchant", "m_1"), result(0, 1, { txHash: "0x01" }));
    expect(eventsOf(last)).toEqual(["SubscriptionCharged"]);
  });
});
