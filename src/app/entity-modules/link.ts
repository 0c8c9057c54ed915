import { TOPIC } from "../../../topics/catalogue.ts";
import type { LinkCommand } from "../../domain/link/types.ts";
import { linkEntity } from "../../entities/link.ts";
import { createLinkAdmin } from "../../gateway/admin/link-admin.ts";
import { requestPort } from "../../kafka/gateway-bus.ts";
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
    const commands = requestPort(
      bus,
      TOPIC.linkCommands,
      (c: LinkCommand) => c.data.linkId,
      shared.codecs.linkCommand,
    );
    const admin = createLinkAdmin({
      send: commands.send,
      store,
      timeoutMs: shared.config.REPLY_TIMEOUT_MS,
    });
    return { links: { admin, store } };
  },
};
