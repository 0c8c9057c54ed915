import { TOPIC } from "../../topics/catalogue.ts";
import type { KafkaClient } from "../kafka/client.ts";
import { linkEventCodec } from "../kafka/codecs.ts";
import type { Logger } from "../logging.ts";
import type { LinkStore } from "../store/payment-links.ts";
import { createJournalProjector } from "./journal-projector.ts";

export const LINK_PROJECTOR_GROUP = "link-projector";

/** link.events -> the Cassandra payment link projection (src/store/payment-links.ts). */
export const createLinkProjector = (deps: { kafka: KafkaClient; store: LinkStore; log: Logger }) =>
  createJournalProjector({
    kafka: deps.kafka,
    log: deps.log,
    group: LINK_PROJECTOR_GROUP,
    topic: TOPIC.linkEvents,
    codec: linkEventCodec,
    apply: (event) => deps.store.apply(event),
  });
