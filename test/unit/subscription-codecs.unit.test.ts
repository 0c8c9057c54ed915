import { describe, expect, it } from "vitest";
import type { SubscriptionCommand, SubscriptionEvent } from "../../src/domain/subscription/types.ts";
import { codecs } from "../support/codecs.ts";
import { SUBSCRIPTION_ID, termsFixture } from "../support/subscriptions.ts";

const terms = termsFixture({ period: 2_592_000, start: 1_800_000_000 });
const subscriptionId = SUBSCRIPTION_ID;
const cmdMeta = {
  commandId: "c1",
  issuedAt: 1_800_000_000_123,
  replyTo: { gatewayId: "g", correlationId: "k" },
};
const evMeta = { subscriptionId, version: 3, occurredAt: 1_800_000_000_123, commandId: "c1" };

const commands: SubscriptionCommand[] = [
  { type: "CreateSubscription", data: { subscriptionId, ...terms }, metadata: cmdMeta },
  {
    type: "CancelSubscription",
    data: {
      subscriptionId,
      source: "payer",
      merchantId: null,
      signature: `0x${"ef".repeat(65)}`,
      txHash: null,
    },
    metadata: { ...cmdMeta, replyTo: null },
  },
  {
    type: "CancelSubscription",
    data: {
      subscriptionId,
      source: "chain",
      merchantId: null,
      signature: null,
      txHash: `0x${"aa".repeat(32)}`,
    },
    metadata: cmdMeta,
  },
  { type: "ChargeDue", data: { subscriptionId, now: 1_800_000_060_000 }, metadata: cmdMeta },
  {
    type: "RecordChargeResult",
    data: {
      subscriptionId,
      periodIndex: 2,
      attempt: 3,
      txHash: null,
      errorMessage: "ERC20InsufficientAllowance",
    },
    metadata: cmdMeta,
  },
];
const events: SubscriptionEvent[] = [
  { type: "SubscriptionCreated", data: terms, metadata: evMeta },
  { type: "ChargeRequested", data: { periodIndex: 0, attempt: 1 }, metadata: evMeta },
  {
    type: "SubscriptionCharged",
    data: { periodIndex: 0, attempt: 1, txHash: `0x${"bb".repeat(32)}` },
    metadata: evMeta,
  },
  {
    type: "ChargeFailed",
    data: { periodIndex: 1, attempt: 2, errorMessage: "PeriodOver", txHash: `0x${"cc".repeat(32)}` },
    metadata: evMeta,
  },
  {
    type: "SubscriptionCanceled",
    data: { source: "merchant", signature: null, txHash: null },
    metadata: evMeta,
  },
];

describe("subscription codecs", () => {
  it("round-trip every command", () => {
    for (const c of commands)
      expect(codecs.subscriptionCommand.decode(codecs.subscriptionCommand.encode(c))).toStrictEqual(c);
  });

  it("round-trip every event", () => {
    for (const e of events)
      expect(codecs.subscriptionEvent.decode(codecs.subscriptionEvent.encode(e))).toStrictEqual(e);
  });

  it("refuse to encode what the checks reject: a non-hex signature, an unknown cancel source", () => {
    const [create] = commands as [Extract<SubscriptionCommand, { type: "CreateSubscription" }>];
    expect(() =>
      codecs.subscriptionCommand.encode({
        ...create,
        data: { ...create.data, signature: "nope" as `0x${string}` },
      }),
    ).toThrow(/must be 0x hex/);
    expect(() =>
      codecs.subscriptionEvent.encode({
        type: "SubscriptionCanceled",
        data: { source: "operator" as "merchant", signature: null, txHash: null },
        metadata: evMeta,
      }),
    ).toThrow(/source/);
  });
});
