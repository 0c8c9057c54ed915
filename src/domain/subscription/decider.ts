import type { Decider, Decision } from "../decider.ts";
import { currentPeriod, retryDelayMs } from "./periods.ts";
import {
  MAX_CHARGE_ATTEMPTS,
  SUBSCRIPTION_REJECTION_MESSAGES,
  type Subscription,
  type SubscriptionCommand,
  type SubscriptionEvent,
  type SubscriptionEventBody,
  type SubscriptionMessage,
  type SubscriptionRejectionCode,
  type SubscriptionReply,
  type SubscriptionState,
  type SubscriptionWebhookType,
} from "./types.ts";

/** How many applied command ids a subscription remembers to recognise a retry. */
const RECENT_COMMANDS = 32;

type SubscriptionDecision = Decision<SubscriptionEvent, SubscriptionMessage, SubscriptionRejectionCode>;

/**
 * The subscription's pure core. The id is derived from the mandate's EIP-712 digest, so a second
 * registration of one mandate reaches this same actor, which refuses it (409): two concurrent
 * registrations cannot both win. Charging: the timer's ChargeDue hands one attempt at a time to the
 * executor (never two in flight), at most MAX_CHARGE_ATTEMPTS per period; each result is one event
 * and one webhook. Cancel is idempotent: whichever of the three paths comes first emits the one
 * SubscriptionCanceled, the others are accepted with nothing new.
 */
export function decideSubscription(
  command: SubscriptionCommand,
  state: SubscriptionState,
): SubscriptionDecision {
  const { commandId, issuedAt } = command.metadata;
  const subscriptionId = command.data.subscriptionId;
  const accept = (
    bodies: SubscriptionEventBody[],
    messages: SubscriptionMessage[] = [],
  ): SubscriptionDecision => {
    const base = state?.version ?? 0;
    const events = bodies.map(
      (body, i) =>
        ({
          ...body,
          metadata: { subscriptionId, version: base + i + 1, occurredAt: issuedAt, commandId },
        }) as SubscriptionEvent,
    );
    return { ok: true, events, outbox: [...messages, ...reply(command, null)] };
  };
  const refuse = (code: SubscriptionRejectionCode): SubscriptionDecision => {
    const rejection = { code, message: SUBSCRIPTION_REJECTION_MESSAGES[code] };
    return { ok: false, rejection, outbox: reply(command, rejection) };
  };

  // A retry of an applied command: accepted again, nothing new.
  if (state?.recent.includes(commandId)) return accept([]);
  const c = command;
  if (c.type === "CreateSubscription") {
    if (state) return refuse("subscription_exists");
    const { subscriptionId: _id, ...data } = c.data;
    const created: SubscriptionEventBody = { type: "SubscriptionCreated", data };
    const { mandate } = data;
    return accept(
      [created],
      [
        webhook(data.merchantId, subscriptionId, "subscription.created", "created", issuedAt, {
          chain_id: data.chainId,
          digest: data.digest,
          payer: mandate.payer,
          token: mandate.token,
          amount: mandate.amount,
          period: mandate.period,
          start: mandate.start,
        }),
      ],
    );
  }
  if (!state) return refuse("subscription_not_found");
  const s = state;
  switch (c.type) {
    case "CancelSubscription": {
      // Another merchant's subscription does not exist for it (the interface's 404, nothing leaks).
      if (c.data.source === "merchant" && c.data.merchantId !== s.merchantId)
        return refuse("subscription_not_found");
      const { source, signature, txHash } = c.data;
      // The payer asked for the mandate to die on chain too: relayed unless the chain or the payer canceled already.
      const relay: SubscriptionMessage[] =
        source === "payer" && signature !== null && s.canceledBy !== "chain" && s.canceledBy !== "payer"
          ? [
              {
                type: "RelayCancel",
                data: {
                  subscriptionId: s.id,
                  commandId: `sub:${s.id}:cancel-relay:${commandId}`,
                  chainId: s.chainId,
                  manager: s.manager,
                  mandate: s.mandate,
                  signature,
                },
              },
            ]
          : [];
      if (s.status === "canceled") return accept([], relay);
      return accept(
        [{ type: "SubscriptionCanceled", data: { source, signature, txHash } }],
        [
          webhook(s.merchantId, s.id, "subscription.canceled", "canceled", issuedAt, { canceled_by: source }),
          ...relay,
        ],
      );
    }
    case "ChargeDue":
      return accept(...chargeIfDue(s, c.data.now));
    case "RecordChargeResult": {
      const { periodIndex, attempt, txHash, errorMessage } = c.data;
      // Only the attempt in flight has a result to record: a re-sent result changes nothing.
      if (!s.inFlight || periodIndex !== s.periodIndex || attempt !== s.attempts) return accept([]);
      if (errorMessage === null && txHash !== null) {
        return accept(
          [{ type: "SubscriptionCharged", data: { periodIndex, attempt, txHash } }],
          [
            webhook(s.merchantId, s.id, "subscription.charged", `charged:${periodIndex}`, issuedAt, {
              amount: s.mandate.amount,
              fee_bps: s.feeBps,
              app_fee_bps: s.mandate.appFeeBps,
              app_fee_recipient: s.mandate.appFeeRecipient,
              tx_hash: txHash,
              period_index: periodIndex,
            }),
          ],
        );
      }
      const message = errorMessage ?? "the charge confirmed without a transaction hash";
      return accept(
        [{ type: "ChargeFailed", data: { periodIndex, attempt, errorMessage: message, txHash } }],
        [
          webhook(
            s.merchantId,
            s.id,
            "subscription.charge_failed",
            `charge_failed:${periodIndex}:${attempt}`,
            issuedAt,
            { error_message: message, period_index: periodIndex, attempt },
          ),
        ],
      );
    }
  }
}

/** The period current at `now`, if it is due and has attempts left: one attempt to the executor. */
function chargeIfDue(s: Subscription, now: number): [SubscriptionEventBody[], SubscriptionMessage[]] {
  if (s.status === "canceled" || s.inFlight) return [[], []];
  const period = currentPeriod(s.mandate, now);
  if (period < s.periodIndex) return [[], []];
  const attempts = period === s.periodIndex ? s.attempts : 0;
  const done = period <= s.lastChargedPeriod || attempts >= MAX_CHARGE_ATTEMPTS;
  if (done || (period === s.periodIndex && now < s.retryAt)) return [[], []];
  const attempt = attempts + 1;
  return [
    [{ type: "ChargeRequested", data: { periodIndex: period, attempt } }],
    [
      {
        type: "Charge",
        data: {
          subscriptionId: s.id,
          commandId: `sub:${s.id}:charge:${period}:${attempt}`,
          chainId: s.chainId,
          manager: s.manager,
          mandate: s.mandate,
          signature: s.signature,
          periodIndex: period,
          attempt,
          feeBps: s.feeBps,
        },
      },
    ],
  ];
}

/** A webhook with the interface's idempotency key `sub:<uuid>:<suffix>`. */
function webhook(
  merchantId: string,
  subscriptionId: string,
  eventType: SubscriptionWebhookType,
  keySuffix: string,
  at: number,
  extra: Record<string, string | number | null>,
): SubscriptionMessage {
  return {
    type: "Webhook",
    data: {
      merchantId,
      eventType,
      idempotencyKey: `sub:${subscriptionId}:${keySuffix}`,
      createdAt: at,
      body: { subscription_id: subscriptionId, event_type: eventType, ...extra },
    },
  };
}

function reply(
  command: SubscriptionCommand,
  rejection: SubscriptionReply["data"]["rejection"],
): SubscriptionReply[] {
  const { replyTo } = command.metadata;
  return replyTo ? [{ type: "Reply", data: { replyTo, rejection } }] : [];
}

export function evolveSubscription(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  const m = event.metadata;
  if (event.type === "SubscriptionCreated") {
    return {
      id: m.subscriptionId,
      version: m.version,
      ...event.data,
      createdAt: m.occurredAt,
      status: "active",
      canceledAt: null,
      canceledBy: null,
      periodIndex: 0,
      attempts: 0,
      inFlight: false,
      lastChargedPeriod: -1,
      retryAt: 0,
      recent: [m.commandId],
    };
  }
  // Every other event follows SubscriptionCreated in the journal.
  if (!state) return state;
  const next: Subscription = { ...state, version: m.version, recent: remember(state.recent, m.commandId) };
  switch (event.type) {
    case "ChargeRequested":
      return { ...next, periodIndex: event.data.periodIndex, attempts: event.data.attempt, inFlight: true };
    case "SubscriptionCharged":
      return { ...next, inFlight: false, lastChargedPeriod: event.data.periodIndex };
    case "ChargeFailed":
      return { ...next, inFlight: false, retryAt: m.occurredAt + retryDelayMs(state.mandate) };
    case "SubscriptionCanceled":
      return { ...next, status: "canceled", canceledAt: m.occurredAt, canceledBy: event.data.source };
  }
}

function remember(recent: string[], commandId: string): string[] {
  if (recent[recent.length - 1] === commandId) return recent;
  return [...recent, commandId].slice(-RECENT_COMMANDS);
}

export const subscriptionDecider: Decider<
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionState,
  SubscriptionMessage,
  SubscriptionRejectionCode
> = {
  initialState: () => null,
  decide: decideSubscription,
  evolve: evolveSubscription,
  versionOf: (s) => s?.version ?? 0,
};
