import {
  CANCEL_SOURCES,
  type SubscriptionCommand,
  type SubscriptionEvent,
} from "../domain/subscription/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";

/**
 * The subscription entity's topics (schemas/SubscriptionCommand.avsc, SubscriptionEvent.avsc): their
 * TypeScript types are the domain's (src/domain/subscription/), checked both ways. Kept apart from
 * records.ts so the subscription contract reads in one place.
 */

type Avro = Record<string, unknown>;

const replyTo = f.record({ gatewayId: f.string, correlationId: f.string });

/** The signed EIP-712 Mandate; `merchant_address` is the mandate's `merchant` field. */
export const mandate = f.record({
  payer: f.address,
  token: f.address,
  amount: f.decimal,
  period: f.number,
  start: f.number,
  merchantAddress: f.address,
  appFeeBps: f.number,
  appFeeRecipient: f.address,
  salt: f.hex,
});

const terms = {
  merchantId: f.string,
  chainId: f.number,
  manager: f.address,
  digest: f.hex,
  mandate,
  signature: f.hex,
  feeBps: f.number,
};

/** subscription.commands: a command to one subscription's actor, keyed by subscription id. */
export const subscriptionCommand: f.Field<SubscriptionCommand, Avro> = message({
  metadata: { commandId: f.string, issuedAt: f.number, replyTo: f.nullable(replyTo) },
  data: { subscriptionId: f.string },
  union: "command",
  types: {
    CreateSubscription: terms,
    CancelSubscription: {
      source: f.oneOf(CANCEL_SOURCES),
      merchantId: f.nullable(f.string),
      signature: f.nullable(f.hex),
      txHash: f.nullable(f.hex),
    },
    ChargeDue: { now: f.number },
    RecordChargeResult: {
      periodIndex: f.number,
      attempt: f.number,
      txHash: f.nullable(f.hex),
      errorMessage: f.nullable(f.string),
    },
  },
});

/** subscription.events: the subscription journal, kept forever. */
export const subscriptionEvent: f.Field<SubscriptionEvent, Avro> = message({
  metadata: { subscriptionId: f.string, version: f.number, occurredAt: f.number, commandId: f.string },
  data: {},
  union: "event",
  types: {
    SubscriptionCreated: terms,
    ChargeRequested: { periodIndex: f.number, attempt: f.number },
    SubscriptionCharged: { periodIndex: f.number, attempt: f.number, txHash: f.hex },
    ChargeFailed: {
      periodIndex: f.number,
      attempt: f.number,
      errorMessage: f.string,
      txHash: f.nullable(f.hex),
    },
    SubscriptionCanceled: {
      source: f.oneOf(CANCEL_SOURCES),
      signature: f.nullable(f.hex),
      txHash: f.nullable(f.hex),
    },
  },
});
