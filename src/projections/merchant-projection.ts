import { TOPIC } from "../../topics/catalogue.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { Logger } from "../logging.ts";
import type { MerchantStore } from "../store/merchants.ts";
import { createJournalProjector } from "./journal-projector.ts";

export const MERCHANT_PROJECTOR_GROUP = "merchant-projector";

/** merchant.events -> the Cassandra merchant projection (src/store/merchants.ts). */
export const createMerchantProjector = (deps: {
  kafka: KafkaClient;
  codecs: Pick<Codecs, "merchantEvent">;
  store: MerchantStore;
  log: Logger;
}) =>
  createJournalProjector({
    kafka: deps.kafka,
    log: deps.log,
    group: MERCHANT_PROJECTOR_GROUP,
    topic: TOPIC.merchantEvents,
    codec: deps.codecs.merchantEvent,
    apply: (event) => deps.store.apply(event),
  });
