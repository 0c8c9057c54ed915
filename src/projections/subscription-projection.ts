import { TOPIC } from "../../topics/catalogue.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { Logger } from "../logging.ts";
import type { SubscriptionStore } from "../store/subscriptions.ts";
import { createJournalProjector } from "./journal-projector.ts";

export const SUBSCRIPTION_PROJECTOR_GROUP = "subscription-projector";

/**
 * subscription.events -> the Cassandra subscription projection (src/store/subscriptions.ts), which
 * skips an event it already holds, so a re-delivered batch changes nothing.
 */
export const createSubscriptionProjector = (deps: {
  kafka: KafkaClient;
  codecs: Pick<Codecs, "subscriptionEvent">;
  store: SubscriptionStore;
  log: Logger;
}) =>
  createJournalProjector({
    kafka: deps.kafka,
    log: deps.log,
    group: SUBSCRIPTION_PROJECTOR_GROUP,
    topic: TOPIC.subscriptionEvents,
    codec: deps.codecs.subscriptionEvent,
    apply: (event) => deps.store.apply(event),
  });
