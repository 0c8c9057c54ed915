import { TOPIC } from "../../topics/catalogue.ts";
import type { EntityDefinition, OutboxRecord } from "../actors/entity.ts";
import { subscriptionDecider } from "../domain/subscription/decider.ts";
import { chargeDueAt } from "../domain/subscription/periods.ts";
import type {
  Subscription,
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionMessage,
  SubscriptionState,
} from "../domain/subscription/types.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { ExecutorCommand } from "../records/executor-commands.ts";
import { replyOutbox } from "./reply-outbox.ts";
import { webhookOutboxRecord } from "./webhook-outbox.ts";

/** The records a subscription decision reads and writes. */
type SubscriptionCodecs = Pick<
  Codecs,
  "subscriptionCommand" | "subscriptionEvent" | "gatewayReply" | "webhookEvent" | "executorCommand"
>;

export type SubscriptionEntity = EntityDefinition<
  SubscriptionCommand,
  SubscriptionEvent,
  SubscriptionState,
  SubscriptionMessage
>;

/** The subscription actors' consumer group, and the prefix of their transactional ids. */
export const SUBSCRIPTION_GROUP = "subscriptions";

/**
 * Where a subscription decision's messages go: the reply to the waiting gateway (gateway.replies, no
 * session in it), webhooks to webhook.events keyed by merchant id (the WebhookEvent the session's
 * outbox writes too, src/entities/webhook-outbox.ts), and charges to the executor.
 */
export function routeSubscriptionMessage(
  codecs: SubscriptionCodecs,
  message: SubscriptionMessage,
): OutboxRecord {
  switch (message.type) {
    case "Reply":
      return replyOutbox(codecs).route(message);
    case "Webhook":
      return webhookOutboxRecord(codecs, message.data);
    case "Charge": {
      const { subscriptionId, commandId, chainId, ...charge } = message.data;
      return executorRecord(codecs, subscriptionId, commandId, chainId, {
        type: "ChargeSubscription",
        subscriptionId,
        ...charge,
      });
    }
    case "RelayCancel": {
      const { subscriptionId, commandId, chainId, manager, mandate, signature } = message.data;
      return executorRecord(codecs, subscriptionId, commandId, chainId, {
        type: "CancelMandate",
        subscriptionId,
        manager,
        mandate,
        signature,
      });
    }
  }
}

/** Work for the chain's relayer on executor.commands, keyed by subscription id; no session. */
function executorRecord(
  codecs: Pick<Codecs, "executorCommand">,
  subscriptionId: string,
  commandId: string,
  chainId: number,
  command: ExecutorCommand["command"],
): OutboxRecord {
  return {
    topic: TOPIC.executorCommands,
    key: subscriptionId,
    value: codecs.executorCommand.encode({
      commandId,
      issuedAt: Date.now(),
      sessionId: null,
      chainId,
      command,
    }),
  };
}

/**
 * The subscription entity: the subscription decider on subscription.commands -> subscription.events,
 * keyed by subscription id (derived from the mandate's EIP-712 digest), on the same generic host as
 * sessions and merchants.
 */
export const subscriptionEntity = (codecs: SubscriptionCodecs): SubscriptionEntity => ({
  name: "subscription",
  group: SUBSCRIPTION_GROUP,
  decider: subscriptionDecider,
  commandKey: (c) => c.data.subscriptionId,
  eventKey: (e) => e.metadata.subscriptionId,
  stateKey: (s) => (s as Subscription).id,
  inputs: [{ topic: TOPIC.subscriptionCommands, toCommand: (v) => codecs.subscriptionCommand.decode(v) }],
  journal: {
    topic: TOPIC.subscriptionEvents,
    encode: (e) => codecs.subscriptionEvent.encode(e),
    // Only subscription hosts write subscription.events, checking every event first.
    decode: (v) => codecs.subscriptionEvent.decodeTrusted(v),
  },
  outbox: {
    topics: [TOPIC.gatewayReplies, TOPIC.webhookEvents, TOPIC.executorCommands],
    route: (message) => routeSubscriptionMessage(codecs, message),
  },
  timers: {
    topic: TOPIC.subscriptionCommands,
    // Each period's start, a failed attempt's retry time; none while an attempt is out or once canceled.
    dueAt: (s) => chargeDueAt(s),
    command: (s, now): SubscriptionCommand => {
      const x = s as Subscription;
      return {
        type: "ChargeDue",
        data: { subscriptionId: x.id, now },
        // Named by the state it fires for: the host's re-send of one timer is a retry, a new state a new id.
        metadata: {
          commandId: `due:${x.id}:${x.periodIndex}:${x.attempts}:${x.lastChargedPeriod}`,
          issuedAt: now,
          replyTo: null,
        },
      };
    },
    encode: (c) => codecs.subscriptionCommand.encode(c),
  },
  // States are plain JSON (the amount is a decimal string).
  snapshot: { encode: (s) => JSON.stringify(s), decode: (text) => JSON.parse(text) as SubscriptionState },
});
