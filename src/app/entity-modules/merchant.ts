import { randomUUID } from "node:crypto";
import { TOPIC } from "../../../topics/catalogue.ts";
import { checkoutChainsOf } from "../../chains/checkout-chains.ts";
import type { MerchantCommand } from "../../domain/merchant/types.ts";
import { merchantEntity } from "../../entities/merchant.ts";
import {
  createMerchantAdmin,
  type MerchantAdmin,
  type MerchantSettingsAdmin,
  type WebhookEndpointAdmin,
} from "../../gateway/admin/merchant-admin.ts";
import { type CheckoutResource, createGuards, type Guards } from "../../gateway/auth.ts";
import { type CheckoutSessions, checkoutResources, createCheckoutSessions } from "../../gateway/checkout.ts";
import { type KeyMode, keyModeOf } from "../../gateway/merchant-keys.ts";
import type { CommandPort } from "../../gateway/ports.ts";
import type { SessionStealth } from "../../gateway/routes/stealth-sessions.ts";
import { createStealthRegistry, type StealthRegistry } from "../../gateway/stealth-registry.ts";
import type { Codecs } from "../../kafka/codecs.ts";
import { type GatewayBus, requestPort } from "../../kafka/gateway-bus.ts";
import { createMerchantProjector, MERCHANT_PROJECTOR_GROUP } from "../../projections/merchant-projection.ts";
import { createSessionReadModel, type SessionReadModel } from "../../projections/read-model.ts";
import { idempotencyKeys } from "../../store/idempotency-keys.ts";
import { merchantEmails } from "../../store/merchant-emails.ts";
import { createMerchantStore } from "../../store/merchants.ts";
import { stealthAddressesTable } from "../../store/stealth-addresses.ts";
import { webhookEndpoints } from "../../store/webhook-endpoints.ts";
import type { Shared } from "../shared.ts";
import type { EntityModule } from "./module.ts";

/** Merchant mode: nothing of it runs when MERCHANT_MODE is off. */
export const merchantModule: EntityModule = {
  name: "merchant",
  enabled: (config) => config.MERCHANT_MODE !== "off",
  entity: ({ codecs }) => merchantEntity(codecs),
  projection: {
    writes: "Cassandra merchants",
    groups: () => [MERCHANT_PROJECTOR_GROUP],
    create: (shared, log) =>
      createMerchantProjector({
        kafka: shared.kafka,
        codecs: shared.codecs,
        store: createMerchantStore(shared.cassandra),
        log,
      }),
  },
  gateway: ({ shared, bus, commands, readModel }) => ({
    merchants: merchantGatewayDeps(shared, bus, { commands, ...(readModel ? { readModel } : {}) }),
  }),
};

/** Merchant commands (merchant.commands) over a gateway's bus, answered by the merchant's actor. */
export const merchantCommandPort = (
  bus: Pick<GatewayBus, "request">,
  codecs: Pick<Codecs, "merchantCommand">,
) =>
  requestPort(bus, TOPIC.merchantCommands, (c: MerchantCommand) => c.data.merchantId, codecs.merchantCommand);

/** The merchant routes' dependencies over a gateway's bus (the gateway's, or the merchant CLI's). */
export function merchantGatewayDeps(
  shared: Pick<Shared, "config" | "cassandra" | "codecs">,
  bus: Pick<GatewayBus, "request">,
  /**
   * The gateway's session commands (read-your-writes): checkout creates sessions through them; and
   * the sessions read model the gateway reads (the active table), by default the `sessions` table.
   */
  deps: { commands: CommandPort; readModel?: Pick<SessionReadModel, "get"> },
):
  | {
      admin: MerchantAdmin;
      webhookEndpoints: WebhookEndpointAdmin;
      guards: Guards;
      checkout: {
        sessions: CheckoutSessions;
        settings: MerchantSettingsAdmin;
        resources: (sessionId: string) => Promise<CheckoutResource | null>;
        stealthOf: (sessionId: string) => Promise<SessionStealth | null>;
        stealthRegistry: StealthRegistry;
        mode: KeyMode;
      };
    }
  | undefined {
  const mode = shared.config.MERCHANT_MODE;
  if (mode === "off") return undefined;
  const store = createMerchantStore(shared.cassandra);
  const readModel = deps.readModel ?? createSessionReadModel(shared.cassandra);
  const keyMode = keyModeOf(mode);
  const stealthRegistry = createStealthRegistry({
    table: stealthAddressesTable(shared.cassandra),
    sessions: readModel,
  });
  const admin = createMerchantAdmin({
    send: merchantCommandPort(bus, shared.codecs).send,
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
        chains: checkoutChainsOf(shared.config.chains ?? []),
        stealthRegistry,
        ttlSeconds: shared.config.SESSION_TTL_SECONDS,
        newId: randomUUID,
        now: Date.now,
      }),
      settings: admin,
      resources: checkoutResources(readModel),
      stealthOf: async (sessionId) => (await readModel.get(sessionId))?.state ?? null,
      stealthRegistry,
      mode: keyMode,
    },
  };
}
