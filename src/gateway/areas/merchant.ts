import type { FastifyPluginAsync } from "fastify";
import { parseSolanaStealthKey } from "../../stealth/ed25519.ts";
import { urlPolicyFor } from "../../webhooks/address-guard.ts";
import type { MerchantSettingsAdmin, WebhookEndpointAdmin } from "../admin/merchant-admin.ts";
import type { CheckoutResource } from "../auth.ts";
import type { CheckoutSessions } from "../checkout.ts";
import type { KeyMode } from "../merchant-keys.ts";
import type { SolanaPort } from "../ports.ts";
import { checkoutMerchantRoutes, registerRoutes } from "../routes/checkout.ts";
import { type EventList, merchantEventRoutes } from "../routes/merchant-events.ts";
import { merchantSettingsRoutes } from "../routes/merchant-settings.ts";
import { type MerchantRouteOptions, merchantRoutes } from "../routes/merchants.ts";
import type { SessionContext } from "../routes/sessions.ts";
import { stealthMetaRoutes } from "../routes/stealth-meta.ts";
import { type SessionStealth, stealthSessionRoutes } from "../routes/stealth-sessions.ts";
import {
  payerSubscriptionRoutes,
  type SubscriptionRouteOptions,
  subscriptionRoutes,
} from "../routes/subscriptions.ts";
import { type DeliveryLog, webhookDeliveryRoutes } from "../routes/webhook-deliveries.ts";
import { webhookEndpointRoutes } from "../routes/webhook-endpoints.ts";
import type { StealthRegistry } from "../stealth-registry.ts";

/** Checkout (merchant mode): payment sessions made by a merchant and paid through its widget. */
export interface CheckoutDeps {
  sessions: CheckoutSessions;
  settings: MerchantSettingsAdmin;
  resources: (sessionId: string) => Promise<CheckoutResource | null>;
  /** A session's stealth part, for GET /sessions/:id/stealth; without it the route does not exist. */
  stealthOf?: (sessionId: string) => Promise<SessionStealth | null>;
  /** Flow D's derived addresses: the stealth withdrawals relay only for paid ones. */
  stealthRegistry?: Pick<StealthRegistry, "paidTo">;
  mode: KeyMode;
}

/** Merchant mode's keys and guards, and the ports of the routes that come with them. */
export type MerchantDeps = Pick<MerchantRouteOptions, "admin" | "guards"> & {
  /** The webhook endpoint routes' port; without it they are not registered. */
  webhookEndpoints?: WebhookEndpointAdmin;
  /** Checkout; without it its routes are not registered. */
  checkout?: CheckoutDeps;
};

export interface MerchantAreaOptions {
  session: SessionContext;
  merchants: MerchantDeps | undefined;
  /** The Solana chain's side, when one is configured: Solana checkouts and pins. */
  solana: SolanaPort | undefined;
  /** The webhook delivery ledger: the delivery log and redelivery routes. */
  webhookDeliveries: DeliveryLog | undefined;
  /** The event list: GET /v1/events. */
  merchantEvents: EventList | undefined;
  /** Subscriptions: the /v1/subscriptions routes and the payer's cancel. */
  subscriptions: SubscriptionRouteOptions | undefined;
}

/**
 * The merchant's API (docs/MERCHANTS.md), registered only in merchant mode: checkout and its widget's
 * registration, settings and stealth meta-address, keys, webhook endpoint, deliveries and events, and
 * subscriptions. Each part exists only when its port is given.
 */
export const merchantArea: FastifyPluginAsync<MerchantAreaOptions> = async (app, opts) => {
  const { session, merchants, solana } = opts;
  const { config } = session;
  const chainIds = (config.chains ?? []).map((c) => c.chainId);
  const stealthGate = { enabled: config.STEALTH_ENABLED, chainIds };
  const checkout = merchants?.checkout;
  if (merchants && checkout) {
    const { guards } = merchants;
    await app.register(checkoutMerchantRoutes, {
      guards,
      checkout: checkout.sessions,
      settings: checkout.settings,
      sessions: session.sessions,
      mode: checkout.mode,
      chainIds,
      solana,
      feeBps: config.PLATFORM_FEE_BPS,
      stealthEnabled: config.STEALTH_ENABLED,
    });
    await app.register(merchantSettingsRoutes, { guards, settings: checkout.settings });
    if (checkout.stealthOf)
      await app.register(stealthSessionRoutes, { guards, stealthOf: checkout.stealthOf, ...stealthGate });
    await app.register(stealthMetaRoutes, {
      guards,
      admin: checkout.settings,
      solanaStealthKey: parseSolanaStealthKey,
      ...stealthGate,
    });
    await app.register(registerRoutes, { ...session, guards, resources: checkout.resources });
  }
  if (merchants) {
    const { admin, guards } = merchants;
    await app.register(merchantRoutes, { config, admin, guards });
    if (opts.webhookDeliveries)
      await app.register(webhookDeliveryRoutes, {
        guards,
        deliveries: opts.webhookDeliveries,
        now: session.now,
      });
    if (opts.merchantEvents) await app.register(merchantEventRoutes, { guards, events: opts.merchantEvents });
    if (merchants.webhookEndpoints)
      await app.register(webhookEndpointRoutes, {
        guards,
        endpoints: merchants.webhookEndpoints,
        policy: urlPolicyFor(config),
        lookupTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
      });
  }
  if (opts.subscriptions) {
    await app.register(subscriptionRoutes, opts.subscriptions);
    await app.register(payerSubscriptionRoutes, { admin: opts.subscriptions.admin });
  }
};
