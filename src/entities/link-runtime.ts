import { TOPIC } from "../../topics/catalogue.ts";
import type { Shared } from "../app/shared.ts";
import { linkCommandCodec } from "../kafka/codecs.ts";
import type { GatewayBus } from "../kafka/gateway-bus.ts";
import type { Logger } from "../logging.ts";
import { createLinkStore, type LinkStore } from "../store/payment-links.ts";
import { createSnapshotTable } from "../store/snapshots.ts";
import { createLinkHost, linkEntity, linkSnapshots } from "./link.ts";
import { createLinkAdmin, type LinkAdmin } from "./link-admin.ts";
import { createLinkProjector } from "./link-projection.ts";
import type { RunningPart } from "./merchant-runtime.ts";

/**
 * Payment links' share of the roles (merchant mode only, like every part of it): the actors role
 * also hosts links, the projector role also writes their projection, the gateway gets the admin
 * and the store. Each is null when MERCHANT_MODE is off.
 */

const on = (shared: Pick<Shared, "config">) => shared.config.MERCHANT_MODE !== "off";

/** The link actors on the generic host, once their first assignment is restored. */
export async function startLinkActors(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
): Promise<RunningPart | null> {
  if (!on(shared)) return null;
  const host = createLinkHost({
    kafka: shared.kafka,
    snapshots: linkSnapshots(createSnapshotTable(shared.cassandra)),
    log,
    snapshotEvery: shared.config.SNAPSHOT_EVERY_EVENTS,
  });
  await host.start();
  const restored = await host.restored(timeoutMs);
  return {
    summary: `link actors in group "${linkEntity.group}": ${restored ? "restored" : "still restoring"}`,
    stop: host.stop,
  };
}

/** link.events -> the Cassandra payment link projection, once caught up. */
export async function startLinkProjector(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
): Promise<RunningPart | null> {
  if (!on(shared)) return null;
  const projector = createLinkProjector({
    kafka: shared.kafka,
    store: createLinkStore(shared.cassandra),
    log,
  });
  const caughtUp = await projector.start(timeoutMs);
  return {
    summary: `link.events -> Cassandra payment_links${caughtUp ? " (caught up)" : " (still catching up)"}`,
    stop: projector.stop,
  };
}

/** The gateway's link dependencies over its bus, or undefined outside merchant mode. */
export function linkGatewayDeps(
  shared: Pick<Shared, "config" | "cassandra">,
  bus: Pick<GatewayBus, "request">,
): { admin: LinkAdmin; store: LinkStore } | undefined {
  if (!on(shared)) return undefined;
  const store = createLinkStore(shared.cassandra);
  const admin = createLinkAdmin({
    send: (command) =>
      bus.request(TOPIC.linkCommands, command.data.linkId, (replyTo) =>
        linkCommandCodec.encode({ ...command, metadata: { ...command.metadata, replyTo } }),
      ),
    store,
    timeoutMs: shared.config.REPLY_TIMEOUT_MS,
  });
  return { admin, store };
}
