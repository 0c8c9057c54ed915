import { createGatewayBus, type GatewayBus } from "../kafka/gateway-bus.ts";
import type { Logger } from "../logging.ts";
import type { Shared } from "./shared.ts";

/**
 * A gateway's side of request/reply over Kafka (src/kafka/gateway-bus.ts) with the configured reply
 * timeout and recent states, started: the gateway role and the merchant CLI, which reaches the
 * merchant actors as a gateway does, both talk to the actors through it.
 */
export async function startGatewayBus(
  shared: Pick<Shared, "config" | "kafka" | "codecs">,
  log: Logger,
): Promise<GatewayBus> {
  const bus = createGatewayBus({
    kafka: shared.kafka,
    codecs: shared.codecs,
    replyTimeoutMs: shared.config.REPLY_TIMEOUT_MS,
    recentStates: shared.config.GATEWAY_RECENT_STATES,
    log,
  });
  await bus.start();
  return bus;
}
