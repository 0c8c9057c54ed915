import { TOPIC } from "../../topics/catalogue.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { Logger } from "../logging.ts";
import type { LinkStore } from "../store/payment-links.ts";
import { createJournalProjector } from "./journal-projector.ts";

export const LINK_PROJECTOR_GROUP = "link-projector";

/** link.events -> the Cassandra payment link projection (src/store/payment-links.ts). */
export const createLinkProjector = (deps: {
  kafka: KafkaClient;
  codecs: Pick<Codecs, "linkEvent">;
  store: LinkStore;
  log: Logger;
}) =>
  createJournalProjector({
    kafka: deps.kafka,
    log: deps.log,
    group: LINK_PROJECTOR_GROUP,
    topic: TOPIC.linkEvents,
    codec: deps.codecs.linkEvent,
    apply: (event) => deps.store.apply(event),
  });
