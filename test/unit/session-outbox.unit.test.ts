import { describe, expect, it } from "vitest";
import type {
  CommandMetadata,
  RecordExecutionResult,
  SessionEvent,
  SessionInput,
  SessionState,
} from "../../src/domain/index.ts";
import { executionResultCommand, transferCommand } from "../../src/entities/session.ts";
import { createSessionCommand, observedTransfer } from "../support/driven-service.ts";
import { testSessionDecider as sessionDecider } from "../support/money.ts";

const ID = "5d0b8f3e-0a51-4a43-9c39-7e1b2a3c4d5e";
const MERCHANT = "mer_7c1d";
const T0 = 1_750_000_000_000;
const replyTo = { gatewayId: "gw-1", correlationId: "c-1" };

/** The state a history of commands leads to, through the decider itself. */
function stateAfter(...commands: SessionInput[]): SessionState {
  let state = sessionDecider.initialState();
  for (const c of commands) {
    const d = sessionDecider.decide(c, state);
    if (d.ok) state = d.events.reduce<SessionState>(sessionDecider.evolve, state);
  }
  return state;
}

const created = (merchantId: string | null, meta: Partial<CommandMetadata> = {}) => {
  const c = createSessionCommand(ID, { merchantId });
  c.metadata = { ...c.metadata, issuedAt: T0, ...meta };
  return c;
};
const deposit = (amount: bigint, at = T0 + 1000) =>
  transferCommand(observedTransfer(ID, { amount, observedAt: at }));

describe("the session decision's outbox", () => {
  it("answers a command that waits for a reply, accepted or refused, and no other", () => {
    const accepted = sessionDecider.decide(created(null, { replyTo }), null);
    expect(accepted.outbox).toEqual([{ type: "Reply", data: { replyTo, rejection: null } }]);

    const existing = stateAfter(created(null));
    const refused = sessionDecider.decide(created(null, { replyTo, commandId: "other" }), existing);
    expect(refused.ok).toBe(false);
    expect(refused.outbox).toEqual([
      { type: "Reply", data: { replyTo, rejection: expect.objectContaining({ code: "session_exists" }) } },
    ]);

    expect(sessionDecider.decide(created(null), null).outbox).toEqual([]);
  });

  it("answers a retried command again without appending anything", () => {
    const first = created(null, { replyTo });
    const retry = sessionDecider.decide(first, stateAfter(first));
    expect(retry).toEqual({
      ok: true,
      events: [],
      outbox: [{ type: "Reply", data: { replyTo, rejection: null } }],
    });
  });

  it("tells the owning merchant once when the first deposit detects the session", () => {
    const state = stateAfter(created(MERCHANT));
    const d = sessionDecider.decide(deposit(25_000_000n), state);
    expect(d.ok && d.events.map((e: SessionEvent) => e.type)).toEqual(["DepositObserved"]);
    expect(d.outbox).toEqual([
      {
        type: "Webhook",
        data: {
          merchantId: MERCHANT,
          sessionId: ID,
          eventType: "payment.detected",
          idempotencyKey: `${ID}:payment.detected`,
          createdAt: T0 + 1000,
          body: {
            session_id: ID,
            event_type: "payment.detected",
            amount: "25000000",
            settled_amount: null,
            overpaid_amount: null,
            flow: "p2p_request",
            dest_address: state?.destAddress,
            dest_chain_id: 31_338,
            dest_pinned: false,
          },
        },
      },
    ]);
    // A second deposit to a detected session changes no status: no second webhook.
    const detected = stateAfter(created(MERCHANT), deposit(25_000_000n));
    expect(sessionDecider.decide(deposit(1n, T0 + 2000), detected).outbox).toEqual([]);
  });

  it("sends anonymous sessions' news to nobody", () => {
    const d = sessionDecider.decide(deposit(5n), stateAfter(created(null)));
    expect(d.ok).toBe(true);
    expect(d.outbox).toEqual([]);
  });

  it("refuses an executor result for a command the session never sent", () => {
    const result: RecordExecutionResult = executionResultCommand({
      commandId: "sweep-1",
      sessionId: ID,
      chainId: 31_337,
      occurredAt: T0,
      result: { type: "TransactionSubmitted", txHash: `0x${"ab".repeat(32)}` },
    });
    const d = sessionDecider.decide(result, stateAfter(created(MERCHANT)));
    expect(d.ok ? "accepted" : d.rejection.code).toBe("execution_unknown");
    expect(sessionDecider.decide(result, null).ok ? "accepted" : "refused").toBe("refused");
  });
});
