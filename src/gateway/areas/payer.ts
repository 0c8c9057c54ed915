import type { FastifyPluginAsync } from "fastify";
import type { Providers } from "../../providers/types.ts";
import type { MerchantSettingsAdmin } from "../admin/merchant-admin.ts";
import type { Guards } from "../auth.ts";
import type { ChainReadPort, LiveUpdatesPort } from "../ports.ts";
import { checkoutStreamAccess, eventRoutes } from "../routes/events.ts";
import { providerRoutes } from "../routes/providers.ts";
import { refundRoutes } from "../routes/refunds.ts";
import { type SessionContext, sessionRoutes } from "../routes/sessions.ts";
import { type CheckoutAccess, type SettlementRoutesOptions, settlementRoutes } from "../routes/settlement.ts";

export interface PayerAreaOptions extends SessionContext {
  live: LiveUpdatesPort;
  /** The settlement routes' chain reads (quote, RPC probe). */
  chainReads: ChainReadPort;
  /** Token options, balances and swap quotes; without one, its routes answer 400 `wallet_unsupported`. */
  providers: Providers;
  /** Merchant mode: a merchant's widget may create sessions with its pk_, under its settings. */
  widget: { guards: Guards; settings?: MerchantSettingsAdmin | undefined } | undefined;
  /** Merchant mode with checkout: the guard of a checkout session's key and client secret. */
  checkout: CheckoutAccess | undefined;
  /** The commit of a Solana-origin session, when a Solana chain is configured. */
  solanaCommit: SettlementRoutesOptions["solanaCommit"];
}

/**
 * The payer's side of a session, on every chain family: create and read it, commit, quote and refund,
 * token options and balances, and its live status stream.
 */
export const payerArea: FastifyPluginAsync<PayerAreaOptions> = async (app, opts) => {
  const { live, chainReads, providers, widget, checkout, solanaCommit, ...session } = opts;
  const { config } = session;
  await app.register(sessionRoutes, {
    ...session,
    widgetOwner: widget && ((request) => widget.guards.publishableKey(request)),
    widgetSettings: widget?.settings,
  });
  const settlement = { ...session, live, chainReads, checkout, solanaCommit };
  await app.register(settlementRoutes, settlement);
  await app.register(refundRoutes, settlement);
  await app.register(providerRoutes, {
    providers,
    sessions: session.sessions,
    slippageBps: config.QUOTE_SLIPPAGE_BPS,
    checkout,
  });
  await app.register(eventRoutes, {
    sessions: session.sessions,
    live,
    keepAliveMs: config.SSE_KEEPALIVE_MS,
    maxStreamsPerClient: config.SSE_MAX_STREAMS_PER_IP,
    maxStreamLifetimeMs: config.SSE_MAX_LIFETIME_MS,
    ...(checkout ? { streamAccess: checkoutStreamAccess(checkout) } : {}),
  });
};
