import { randomUUID } from "node:crypto";
import type { Shared } from "../app/shared.ts";
import type { CheckoutResource, Guards } from "../gateway/auth.ts";
import { createGuards } from "../gateway/auth.ts";
import { type CheckoutSessions, checkoutResources, createCheckoutSessions } from "../gateway/checkout.ts";
import type { CommandPort } from "../gateway/ports.ts";
import type { GatewayBus } from "../kafka/gateway-bus.ts";
import type { Logger } from "../logging.ts";
import { createSessionReadModel } from "../projections/read-model.ts";
import { idempotencyKeys } from "../store/idempotency-keys.ts";
import { merchantEmails } from "../store/merchant-emails.ts";
import { createMerchantStore } from "../store/merchants.ts";
import { createSnapshotTable } from "../store/snapshots.ts";
import { webhookEndpoints } from "../store/webhook-endpoints.ts";
import { createMerchantHost, merchantEntity, merchantSnapshots } from "./merchant.ts";
import {
  createMerchantAdmin,
  type MerchantAdmin,
  type MerchantSettingsAdmin,
  type WebhookEndpointAdmin,
} from "./merchant-admin.ts";
import { type KeyMode, keyModeOf } from "./merchant-keys.ts";
import { createMerchantProjector } from "./merchant-projection.ts";

/**
 * Merchant mode's share of the roles, in one place: the actors role also hosts merchants, the
 * projector role also writes the merchant projection, the gateway gets the guards and the admin.
 * Each is null when MERCHANT_MODE is off: nothing of merchant mode runs then.
 */

type Mode = "development" | "production";
const modeOf = (shared: Pick<Shared, "config">): Mode | null =>
  shared.config.MERCHANT_MODE === "off" ? null : shared.config.MERCHANT_MODE;

export interface RunningPart {
  summary: string;
  stop(): Promise<void>;
}

/** The merchant actors on the generic host, once their first assignment is restored. */
export async function startMerchantActors(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
): Promise<RunningPart | null> {
  if (!modeOf(shared)) return null;
  const host = createMerchantHost({
    kafka: shared.kafka,
    snapshots: merchantSnapshots(createSnapshotTable(shared.cassandra)),
    log,
    snapshotEvery: shared.config.SNAPSHOT_EVERY_EVENTS,
  });
  await host.start();
  const restored = await host.restored(timeoutMs);
  return {
    summary: `merchant actors in group "${merchantEntity.group}": ${restored ? "restored" : "still restoring"}`,
    stop: host.stop,
  };
}

/** merchant.events -> the Cassandra merchant projection, once caught up. */
export async function startMerchantProjector(
  shared: Shared,
  log: Logger,
  timeoutMs: number,
): Promise<RunningPart | null> {
  if (!modeOf(shared)) return null;
  const projector = createMerchantProjector({
    kafka: shared.kafka,
    store: createMerchantStore(shared.cassandra),
    log,
  });
  const caughtUp = await projector.start(timeoutMs);
  return {
    summary: `merchant.events -> Cassandra merchants${caughtUp ? " (caught up)" : " (still catching up)"}`,
    stop: projector.stop,
  };
}

/** The gateway's merchant routes' dependencies, over the gateway's bus. */
export function merchantGatewayDeps(
  shared: Pick<Shared, "config" | "cassandra">,
  bus: Pick<GatewayBus, "merchantCommands">,
  /** The gateway's session commands (read-your-writes): checkout creates sessions through them. */
  deps: { commands: CommandPort },
):
  | {
      admin: MerchantAdmin;
      webhookEndpoints: WebhookEndpointAdmin;
      guards: Guards;
      checkout: {
        sessions: CheckoutSessions;
        settings: MerchantSettingsAdmin;
        resources: (sessionId: string) => Promise<CheckoutResource | null>;
        mode: KeyMode;
      };
    }
  | undefined {
  const mode = modeOf(shared);
  if (!mode) return undefined;
  const store = createMerchantStore(shared.cassandra);
  const keyMode = keyModeOf(mode);
  const admin = createMerchantAdmin({
    send: bus.merchantCommands.send,
    store,
    emails: merchantEmails(shared.cassandra),
    endpoints: webhookEndpoints(shared.cassandra),
    mode: keyMode,
    timeoutMs: shared.config.REPLY_TIMEOUT_MS,
  });
  return {
    admin,
    webhookEndpoints: admin,
    guards: createGuards({ keys: store, mode: keyMode }),
    checkout: {
      sessions: createCheckoutSessions({
        commands: deps.commands,
        settings: admin,
        idempotency: idempotencyKeys(shared.cassandra),
        mode: keyMode,
        ttlSeconds: shared.config.SESSION_TTL_SECONDS,
        newId: randomUUID,
        now: Date.now,
      }),
      settings: admin,
      resources: checkoutResources(createSessionReadModel(shared.cassandra)),
      mode: keyMode,
    },
  };
}
