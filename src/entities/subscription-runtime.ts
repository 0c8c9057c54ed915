import type { Address } from "viem";
import { TOPIC } from "../../topics/catalogue.ts";
import type { Shared } from "../app/shared.ts";
import { createSubscriptionWatcher } from "../chains/evm/subscription-watcher.ts";
import type { Guards } from "../gateway/auth.ts";
import { createPlainProducer } from "../kafka/at-least-once.ts";
import type { GatewayBus } from "../kafka/gateway-bus.ts";
import type { Logger } from "../logging.ts";
import { createSnapshotTable } from "../store/snapshots.ts";
import { createSubscriptionStore } from "../store/subscriptions.ts";
import type { RunningPart } from "./merchant-runtime.ts";
import { createSubscriptionHost, subscriptionEntity, subscriptionSnapshots } from "./subscription.ts";
import { createSubscriptionAdmin, type SubscriptionAdmin } from "./subscription-admin.ts";
import { createSubscriptionProjector } from "./subscription-projection.ts";

/**
 * Subscriptions' share of the roles, merchant mode only (each is null otherwise): the actors role
 * hosts the subscription entity, the projector role writes its projection, the gateway gets the admin.
 */
const enabled = (shared: Pick<Shared, "config">): boolean => shared.config.MERCHANT_MODE !== "off";

/** The subscription actors on the generic host, once their first assignment is restored. */
export async function startSubscriptionActors(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
): Promise<RunningPart | null> {
  if (!enabled(shared)) return null;
  const host = createSubscriptionHost({
    kafka: shared.kafka,
    snapshots: subscriptionSnapshots(createSnapshotTable(shared.cassandra)),
    log,
    snapshotEvery: shared.config.SNAPSHOT_EVERY_EVENTS,
  });
  await host.start();
  const restored = await host.restored(timeoutMs);
  return {
    summary: `subscription actors in group "${subscriptionEntity.group}": ${restored ? "restored" : "still restoring"}`,
    stop: host.stop,
  };
}

/** subscription.events -> the Cassandra subscription projection, once caught up. */
export async function startSubscriptionProjector(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
): Promise<RunningPart | null> {
  if (!enabled(shared)) return null;
  const projector = createSubscriptionProjector({
    kafka: shared.kafka,
    store: createSubscriptionStore(shared.cassandra),
    log,
  });
  const caughtUp = await projector.start(timeoutMs);
  return {
    summary: `subscription.events -> Cassandra subscriptions${caughtUp ? " (caught up)" : " (still catching up)"}`,
    stop: projector.stop,
  };
}

/**
 * The watchers that mirror each chain's on-chain cancels (the manager's Canceled logs) to
 * subscription.commands; run by the indexer role, merchant mode only.
 */
export async function startSubscriptionWatchers(
  shared: Pick<Shared, "config" | "cassandra" | "chains" | "kafka" | "codecs">,
  log: Logger,
): Promise<RunningPart | null> {
  if (!enabled(shared)) return null;
  const chains = shared.chains.flatMap(({ chain }) =>
    chain.family === "evm" && chain.subscriptions ? [{ ...chain, manager: chain.subscriptions }] : [],
  );
  if (chains.length === 0) return null;
  const producer = createPlainProducer(shared.kafka);
  await producer.connect();
  const abort = new AbortController();
  const runs = chains.map((c) =>
    createSubscriptionWatcher({
      chainId: c.chainId,
      rpcUrl: c.rpcUrl,
      manager: c.manager,
      confirmations: c.confirmations,
      cassandra: shared.cassandra,
      send: (commands) =>
        producer.send(
          TOPIC.subscriptionCommands,
          commands.map((cmd) => ({
            key: cmd.data.subscriptionId,
            value: shared.codecs.subscriptionCommand.encode(cmd),
          })),
        ),
      pollMs: shared.config.INDEXER_POLL_MS,
      signal: abort.signal,
      log: (msg, fields) => log.info(fields ?? {}, msg),
    })
      .run()
      .catch((err) => log.error({ err, chainId: c.chainId }, "subscription watcher stopped")),
  );
  return {
    summary: `subscription cancels mirrored from chains ${chains.map((c) => c.chainId).join(", ")}`,
    async stop() {
      abort.abort();
      await Promise.all(runs);
      await producer.disconnect();
    },
  };
}

/** The SubscriptionManager of each configured EVM chain that has one. */
export function subscriptionManagers(shared: Pick<Shared, "chains">): Map<number, Address> {
  const managers = new Map<number, Address>();
  for (const { chain } of shared.chains) {
    if (chain.family === "evm" && chain.subscriptions) managers.set(chain.chainId, chain.subscriptions);
  }
  return managers;
}

/** The gateway's subscription routes' dependencies, over the gateway's bus and the merchant guards. */
export function subscriptionGatewayDeps(
  shared: Pick<Shared, "config" | "cassandra" | "chains">,
  bus: Pick<GatewayBus, "subscriptionCommands">,
  guards: Guards | undefined,
): { admin: SubscriptionAdmin; guards: Guards } | undefined {
  if (!enabled(shared) || !guards) return undefined;
  const admin = createSubscriptionAdmin({
    send: bus.subscriptionCommands.send,
    store: createSubscriptionStore(shared.cassandra),
    managers: subscriptionManagers(shared),
    feeBps: shared.config.PLATFORM_FEE_BPS,
    timeoutMs: shared.config.REPLY_TIMEOUT_MS,
  });
  return { admin, guards };
}
