import { TOPIC } from "../../../topics/catalogue.ts";
import type { GatewaySubscriptions } from "../../chains/adapter.ts";
import type { SubscriptionCommand } from "../../domain/subscription/types.ts";
import { subscriptionEntity } from "../../entities/subscription.ts";
import { createSubscriptionAdmin } from "../../gateway/admin/subscription-admin.ts";
import { createPlainProducer } from "../../kafka/at-least-once.ts";
import type { Codecs } from "../../kafka/codecs.ts";
import { type GatewayBus, requestPort } from "../../kafka/gateway-bus.ts";
import type { Logger } from "../../logging.ts";
import {
  createSubscriptionProjector,
  SUBSCRIPTION_PROJECTOR_GROUP,
} from "../../projections/subscription-projection.ts";
import { createSubscriptionStore } from "../../store/subscriptions.ts";
import type { Shared } from "../shared.ts";
import type { EntityModule, RunningPart } from "./module.ts";

/** Subscriptions: merchant mode only; their routes need the merchant guards (listed after merchants). */
export const subscriptionModule: EntityModule = {
  name: "subscription",
  enabled: (config) => config.MERCHANT_MODE !== "off",
  entity: ({ codecs }) => subscriptionEntity(codecs),
  projection: {
    writes: "Cassandra subscriptions",
    groups: () => [SUBSCRIPTION_PROJECTOR_GROUP],
    create: (shared, log) =>
      createSubscriptionProjector({
        kafka: shared.kafka,
        codecs: shared.codecs,
        store: createSubscriptionStore(shared.cassandra),
        log,
      }),
  },
  gateway({ shared, bus }, earlier) {
    const guards = earlier.merchants?.guards;
    if (!guards) return {};
    const admin = createSubscriptionAdmin({
      send: subscriptionCommandPort(bus, shared.codecs).send,
      store: createSubscriptionStore(shared.cassandra),
      chains: subscriptionChains(shared),
      feeBps: shared.config.PLATFORM_FEE_BPS,
      timeoutMs: shared.config.REPLY_TIMEOUT_MS,
    });
    return { subscriptions: { admin, guards } };
  },
  indexer: startSubscriptionWatchers,
};

/** Subscription commands (subscription.commands) over a gateway's bus, answered by the subscription's actor. */
export const subscriptionCommandPort = (
  bus: Pick<GatewayBus, "request">,
  codecs: Pick<Codecs, "subscriptionCommand">,
) =>
  requestPort(
    bus,
    TOPIC.subscriptionCommands,
    (c: SubscriptionCommand) => c.data.subscriptionId,
    codecs.subscriptionCommand,
  );

/**
 * The watchers that mirror each chain's on-chain cancels (the manager's Canceled logs) to
 * subscription.commands; run by the indexer role.
 */
async function startSubscriptionWatchers(
  shared: Pick<Shared, "config" | "cassandra" | "chains" | "kafka" | "codecs">,
  log: Logger,
): Promise<RunningPart | null> {
  const chains = shared.chains.flatMap(({ chain, subscriptionWatcher }) =>
    subscriptionWatcher ? [{ chainId: chain.chainId, watcher: subscriptionWatcher }] : [],
  );
  if (chains.length === 0) return null;
  const producer = createPlainProducer(shared.kafka);
  await producer.connect();
  const abort = new AbortController();
  const runs = chains.map((c) =>
    c
      .watcher({
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

/** The subscription side of each configured chain that has a SubscriptionManager. */
function subscriptionChains(shared: Pick<Shared, "chains">): Map<number, GatewaySubscriptions> {
  const chains = new Map<number, GatewaySubscriptions>();
  for (const { chain, gateway } of shared.chains) {
    if (gateway.subscriptions) chains.set(chain.chainId, gateway.subscriptions);
  }
  return chains;
}
