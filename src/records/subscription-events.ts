import { CANCEL_SOURCES, type SubscriptionEvent } from "../domain/subscription/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import type { Avro } from "./shared.ts";
import { terms } from "./subscription-fields.ts";

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
