import { TOPIC } from "../../../topics/catalogue.ts";
import { linkEntity } from "../../entities/link.ts";
import { createLinkAdmin } from "../../gateway/admin/link-admin.ts";
import { createLinkProjector, LINK_PROJECTOR_GROUP } from "../../projections/link-projection.ts";
import { createLinkStore } from "../../store/payment-links.ts";
import type { EntityModule } from "./module.ts";

/** Payment links: merchant mode only, like every part of it. */
export const linkModule: EntityModule = {
  name: "link",
  enabled: (config) => config.MERCHANT_MODE !== "off",
  entity: ({ codecs }) => linkEntity(codecs),
  projection: {
    writes: "Cassandra payment_links",
    groups: () => [LINK_PROJECTOR_GROUP],
    create: (shared, log) =>
      createLinkProjector({
        kafka: shared.kafka,
        codecs: shared.codecs,
        store: createLinkStore(shared.cassandra),
        log,
      }),
  },
  gateway({ shared, bus }) {
    const store = createLinkStore(shared.cassandra);
    const admin = createLinkAdmin({
      send: (command) =>
        bus.request(TOPIC.linkCommands, command.data.linkId, (replyTo) =>
          shared.codecs.linkCommand.encode({ ...command, metadata: { ...command.metadata, replyTo } }),
        ),
      store,
      timeoutMs: shared.config.REPLY_TIMEOUT_MS,
    });
    return { links: { admin, store } };
  },
};
