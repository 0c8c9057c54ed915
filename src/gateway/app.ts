import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { ChainAdapter } from "../chains/adapter.ts";
import { createChainAdapters } from "../chains/adapters.ts";
import { createGatewayChains } from "../chains/gateway-chains.ts";
import { serviceAddresses } from "../chains/service-addresses.ts";
import type { SolanaStealthWithdrawals } from "../chains/solana-stealth-withdrawals.ts";
import type { StealthWithdrawals } from "../chains/stealth-withdrawals.ts";
import type { Config } from "../config.ts";
import type { Operator } from "../operator/operator.ts";
import type { Providers } from "../providers/types.ts";
import { type LinkRouteDeps, linksArea } from "./areas/links.ts";
import { type MerchantDeps, merchantArea } from "./areas/merchant.ts";
import { operatorArea } from "./areas/operator.ts";
import { payerArea } from "./areas/payer.ts";
import { solanaArea } from "./areas/solana.ts";
import { stealthArea } from "./areas/stealth.ts";
import type {
  ChainReadPort,
  CommandPort,
  HealthPort,
  LiveUpdatesPort,
  SessionReadPort,
  SolanaPort,
} from "./ports.ts";
import { docsRoutes } from "./routes/docs.ts";
import type { EventList } from "./routes/merchant-events.ts";
import type { SessionContext } from "./routes/sessions.ts";
import { solanaCommit } from "./routes/solana.ts";
import type { SubscriptionRouteOptions } from "./routes/subscriptions.ts";
import type { DeliveryLog } from "./routes/webhook-deliveries.ts";
import { createServer } from "./server.ts";

export interface GatewayDeps {
  config: Config;
  commands: CommandPort;
  sessions: SessionReadPort;
  live: LiveUpdatesPort;
  health: HealthPort;
  /** The configured chains' adapters (their gateway side); by default made from `config.chains`. */
  chains?: readonly ChainAdapter[];
  /** The settlement routes' chain reads (quote, RPC probe); by default the chains' adapters. */
  chainReads?: ChainReadPort;
  /** The Solana chain's side, when one is configured: the Solana routes exist only with it (docs/SOLANA.md). */
  solana?: SolanaPort | undefined;
  /** Token options, balances and swap quotes (src/providers/); without one, its routes answer 400 `wallet_unsupported`. */
  providers?: Providers | undefined;
  /** Merchant mode's keys and guards; its routes exist only when MERCHANT_MODE is on and this is given. */
  merchants?: MerchantDeps | undefined;
  /** The webhook delivery ledger, for the delivery log and redelivery routes (merchant mode). */
  webhookDeliveries?: DeliveryLog | undefined;
  /** The event list, for GET /v1/events (merchant mode). */
  merchantEvents?: EventList | undefined;
  /** Subscriptions (merchant mode): the /v1/subscriptions routes and the payer's cancel. */
  subscriptions?: SubscriptionRouteOptions | undefined;
  /** Payment links (merchant mode, with checkout): the /v1/payment_links and public /links routes. */
  links?: LinkRouteDeps["links"] | undefined;
  /** The EVM stealth withdrawal's relays (docs/STEALTH.md): POST /stealth/withdraw exists with it. */
  stealthWithdrawals?: StealthWithdrawals | undefined;
  /** The Solana stealth withdrawal's relay (docs/STEALTH.md): its two routes exist with it. */
  solanaStealthWithdrawals?: SolanaStealthWithdrawals | undefined;
  /** The operator's tools (docs/OPERATIONS.md): their routes exist when this and OPERATOR_SECRET are given. */
  operator?: Operator | undefined;
  /**
   * When given, every request is counted in it. It is served on the process's metrics port
   * (METRICS_PORT, src/ops/metrics-server.ts), never here: the API port has no /metrics.
   */
  metrics?: Registry;
  logger?: Logger;
  /** Session and command ids when the client sends no Idempotency-Key; random UUIDs by default. */
  newId?: () => string;
  /** Unix ms; Date.now by default. */
  now?: () => number;
}

/**
 * What the entity modules give the areas (src/app/entity-modules/, each module its own field): the
 * areas are the HTTP API's, so the gateway names them; the roles that build them name no entity.
 */
export type EntityAreaDeps = Pick<GatewayDeps, "merchants" | "subscriptions" | "links">;

/**
 * The HTTP gateway: the server (server.ts) and its areas (areas/), each a fastify plugin over the ports
 * it needs. Stateless apart from the rate-limit buckets: commands go to the session's owner through
 * `commands`, reads come from the read model. Merchant mode is decided here, once: with it off, no
 * merchant route exists and no merchant guard reaches the payer's routes. The caller listens (or
 * injects) and closes it.
 */
export async function createGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { config } = deps;
  const app = await createServer({
    config,
    logger: deps.logger,
    countRequests: !!deps.metrics,
    now: deps.now,
  });

  // Every chain a request names is reached through its adapter, picked by chain id.
  const adapters = deps.chains ?? createChainAdapters(config.chains ?? []);
  const chains = createGatewayChains(adapters);
  if (!chains.delegating) {
    app.log.warn("no configured chain takes burner authorizations: every POST /sessions will be refused");
  }
  for (const { message, err } of chains.verifierWarnings()) app.log.warn({ err }, message);

  const merchantMode = config.MERCHANT_MODE !== "off";
  const merchants = merchantMode ? deps.merchants : undefined;
  const checkout = merchants?.checkout;
  const checkoutAccess = merchants &&
    checkout && {
      guards: merchants.guards,
      resources: checkout.resources,
      destinations: checkout.settings.destinations,
    };
  const session: SessionContext = {
    config,
    chains,
    serviceAddresses: serviceAddresses(adapters, deps.solana),
    commands: deps.commands,
    sessions: deps.sessions,
    newId: deps.newId ?? randomUUID,
    now: deps.now ?? Date.now,
  };
  const solana = deps.solana && {
    ...session,
    solana: deps.solana,
    checkout: checkoutAccess,
    stealthOf: checkout?.stealthOf,
  };

  await app.register(operatorArea, {
    health: deps.health,
    tools:
      deps.operator && config.OPERATOR_SECRET
        ? { operator: deps.operator, secret: config.OPERATOR_SECRET }
        : undefined,
  });
  await app.register(payerArea, {
    ...session,
    live: deps.live,
    chainReads: deps.chainReads ?? chains.reads,
    providers: deps.providers ?? {},
    widget: merchants && { guards: merchants.guards, settings: checkout?.settings },
    checkout: checkoutAccess,
    solanaCommit: solana && solanaCommit(solana),
  });
  if (solana) await app.register(solanaArea, { ...solana, live: deps.live });
  await app.register(stealthArea, {
    evm: deps.stealthWithdrawals,
    solana: deps.solanaStealthWithdrawals,
    registry: checkout?.stealthRegistry,
    enabled: config.STEALTH_ENABLED,
    chainIds: (config.chains ?? []).map((c) => c.chainId),
  });
  if (merchantMode) {
    await app.register(merchantArea, {
      session,
      merchants,
      solana: deps.solana,
      webhookDeliveries: deps.webhookDeliveries,
      merchantEvents: deps.merchantEvents,
      subscriptions: deps.subscriptions,
    });
  }
  if (merchants && checkout && deps.links) {
    await app.register(linksArea, {
      links: deps.links,
      guards: merchants.guards,
      merchants: merchants.admin,
      checkout: checkout.sessions,
      destinations: checkout.settings.destinations,
      chains,
      solana: deps.solana && {
        port: deps.solana,
        name: config.chains?.find((c) => c.chainId === deps.solana?.chainId)?.name ?? "Solana",
        feeBps: config.PLATFORM_FEE_BPS,
      },
      publicUrl: config.PUBLIC_URL,
      now: session.now,
    });
  }
  await app.register(docsRoutes);
  return app;
}
