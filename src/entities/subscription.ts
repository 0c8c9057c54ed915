import { TOPIC } from "../../topics/catalogue.ts";
import type { EntityDefinition, OutboxRecord } from "../actors/entity.ts";
import { createEntityHost, type EntityHost, type EntityHostDeps } from "../actors/host.ts";
import { createSnapshotStore, type SnapshotStore } from "../actors/snapshots.ts";
import { subscriptionDecider } from "../domain/subscription/decider.ts";
import type {
  Subscription,
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionMessage,
  SubscriptionState,
} from "../domain/subscription/types.ts";
import {
  gatewayReplyCodec,
  subscriptionCommandCodec,
  subscriptionEventCodec,
  webhookEventCodec,
} from "../kafka/codecs.ts";
import type { SnapshotTable } from "../store/snapshots.ts";

/** The subscription actors' consumer group, and the prefix of their transactional ids. */
export const SUBSCRIPTION_GROUP = "subscriptions";

/** Status codes written on GatewayReply: coarse, as the session's; the gateway answers from `code`. */
const ACCEPTED = 200;
const REFUSED = 409;

/**
 * Where a subscription decision's messages go: the reply to the waiting gateway (gateway.replies, no
 * session in it), webhooks to webhook.events keyed by merchant id (the WebhookEvent the session's
 * outbox writes too), and charges to the executor.
 */
export function routeSubscriptionMessage(message: SubscriptionMessage): OutboxRecord {
  switch (message.type) {
    case "Reply": {
      const { replyTo, rejection } = message.data;
      return {
        topic: TOPIC.gatewayReplies,
        key: replyTo.gatewayId,
        value: gatewayReplyCodec.encode({
          ...replyTo,
          status: rejection ? REFUSED : ACCEPTED,
          code: rejection?.code ?? null,
          message: rejection?.message ?? null,
          session: null,
        }),
      };
    }
    case "Webhook": {
      const w = message.data;
      return {
        topic: TOPIC.webhookEvents,
        key: w.merchantId,
        value: webhookEventCodec.encode({
          idempotencyKey: w.idempotencyKey,
          merchantId: w.merchantId,
          eventType: w.eventType,
          sessionId: null,
          // The bytes the worker signs and sends: fixed here, once, with the event.
          payload: JSON.stringify(w.body),
          createdAt: w.createdAt,
        }),
      };
    }
    case "Charge":
      throw new Error("subscription charges have no executor route yet");
  }
}

/**
 * The subscription entity: the subscription decider on subscription.commands -> subscription.events,
 * keyed by subscription id (derived from the mandate's EIP-712 digest), on the same generic host as
 * sessions and merchants.
 */
export const subscriptionEntity: EntityDefinition<
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionState,
  SubscriptionMessage
> = {
  name: "subscription",
  group: SUBSCRIPTION_GROUP,
  decider: subscriptionDecider,
  commandKey: (c) => c.data.subscriptionId,
  eventKey: (e) => e.metadata.subscriptionId,
  stateKey: (s) => (s as Subscription).id,
  inputs: [{ topic: TOPIC.subscriptionCommands, toCommand: (v) => subscriptionCommandCodec.decode(v) }],
  journal: {
    topic: TOPIC.subscriptionEvents,
    encode: (e) => subscriptionEventCodec.encode(e),
    // Only subscription hosts write subscription.events, checking every event first.
    decode: (v) => subscriptionEventCodec.decodeTrusted(v),
  },
  outbox: {
    topics: [TOPIC.gatewayReplies, TOPIC.webhookEvents],
    route: (message) => routeSubscriptionMessage(message),
  },
  // States are plain JSON (the amount is a decimal string).
  snapshot: { encode: (s) => JSON.stringify(s), decode: (text) => JSON.parse(text) as SubscriptionState },
};

export type SubscriptionHost = EntityHost<SubscriptionState>;

export const subscriptionSnapshots = (table: SnapshotTable): SnapshotStore<SubscriptionState> =>
  createSnapshotStore(table, subscriptionEntity);

/** The subscription actors: the generic host running the subscription entity. */
export function createSubscriptionHost(deps: EntityHostDeps<SubscriptionState>): SubscriptionHost {
  return createEntityHost(subscriptionEntity, deps);
}
