import { CANCEL_SOURCES, type SubscriptionCommand } from "../domain/subscription/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import { type Avro, replyTo } from "./shared.ts";
import { terms } from "./subscription-fields.ts";

/**
 * subscription.commands (schemas/SubscriptionCommand.avsc): its TypeScript type is the domain's
 * (src/domain/subscription/), checked both ways.
 */
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
