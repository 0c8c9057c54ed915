import { randomUUID } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import cors, { type FastifyCorsOptions } from "@fastify/cors";
import swagger from "@fastify/swagger";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { ChainAdapter } from "../chains/adapter.ts";
import { createChainAdapters } from "../chains/adapters.ts";
import { evmChainsOf } from "../chains/config.ts";
import { createGatewayChains } from "../chains/gateway-chains.ts";
import { serviceAddresses } from "../chains/service-addresses.ts";
import type { SolanaStealthWithdrawals } from "../chains/solana-stealth-withdrawals.ts";
import type { StealthWithdrawals } from "../chains/stealth-withdrawals.ts";
import type { Config } from "../config.ts";
import type { Operator } from "../operator/operator.ts";
import type { Providers } from "../providers/types.ts";
import { parseSolanaStealthKey } from "../stealth/ed25519.ts";
import { urlPolicyFor } from "../webhooks/address-guard.ts";
import type { MerchantSettingsAdmin, WebhookEndpointAdmin } from "./admin/merchant-admin.ts";
import type { CheckoutResource } from "./auth.ts";
import type { CheckoutSessions } from "./checkout.ts";
import { fromClientError, type GatewayError, gatewayError, toGatewayError } from "./errors.ts";
import type { KeyMode } from "./merchant-keys.ts";
import type {
  ChainReadPort,
  CommandPort,
  HealthPort,
  LiveUpdatesPort,
  SessionReadPort,
  SolanaPort,
} from "./ports.ts";
import { createRateLimiter, rateLimitHook } from "./rate-limit.ts";
import { requestLogSerializers } from "./request-log.ts";
import { checkoutMerchantRoutes, registerRoutes } from "./routes/checkout.ts";
import { docsRoutes, openApiOptions } from "./routes/docs.ts";
import { checkoutStreamAccess, eventRoutes } from "./routes/events.ts";
import { healthRoutes } from "./routes/health.ts";
import { type LinkRouteDeps, registerLinkRoutes } from "./routes/links.ts";
import { type EventList, merchantEventRoutes } from "./routes/merchant-events.ts";
import { merchantSettingsRoutes } from "./routes/merchant-settings.ts";
import { type MerchantRouteOptions, merchantRoutes } from "./routes/merchants.ts";
import { countRequest } from "./routes/metrics.ts";
import { operatorRoutes } from "./routes/operator.ts";
import { providerRoutes } from "./routes/providers.ts";
import { refundRoutes } from "./routes/refunds.ts";
import { sessionRoutes } from "./routes/sessions.ts";
import { settlementRoutes } from "./routes/settlement.ts";
import { solanaCommit, solanaRoutes } from "./routes/solana.ts";
import { solanaRefundRoutes } from "./routes/solana-refund.ts";
import { stealthMetaRoutes } from "./routes/stealth-meta.ts";
import { type SessionStealth, stealthSessionRoutes } from "./routes/stealth-sessions.ts";
import { stealthWithdrawRoutes } from "./routes/stealth-withdraw.ts";
import { solanaStealthWithdrawRoutes } from "./routes/stealth-withdraw-solana.ts";
import {
  payerSubscriptionRoutes,
  type SubscriptionRouteOptions,
  subscriptionRoutes,
} from "./routes/subscriptions.ts";
import { type DeliveryLog, webhookDeliveryRoutes } from "./routes/webhook-deliveries.ts";
import { webhookEndpointRoutes } from "./routes/webhook-endpoints.ts";
import type { StealthRegistry } from "./stealth-registry.ts";

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
  merchants?:
    | (Pick<MerchantRouteOptions, "admin" | "guards"> & {
        /** The webhook endpoint routes' port (merchant mode); without it they are not registered. */
        webhookEndpoints?: WebhookEndpointAdmin;
        /** Checkout (merchant mode); without it its routes are not registered. */
        checkout?: {
          sessions: CheckoutSessions;
          settings: MerchantSettingsAdmin;
          resources: (sessionId: string) => Promise<CheckoutResource | null>;
          /** A session's stealth part, for GET /sessions/:id/stealth; without it the route does not exist. */
          stealthOf?: (sessionId: string) => Promise<SessionStealth | null>;
          /** Flow D's derived addresses: the stealth withdrawals relay only for paid ones. */
          stealthRegistry?: Pick<StealthRegistry, "paidTo">;
          mode: KeyMode;
        };
      })
    | undefined;
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
 * The HTTP gateway of the anonymous session surface. Stateless apart from the rate-limit buckets:
 * commands go to the session's owner through `commands`, reads come from the read model. The caller
 * listens (or injects) and closes it.
 */
export async function createGateway(deps: GatewayDeps): Promise<FastifyInstance> {
  const { config } = deps;
  // Request lines name the route and the session, never the URL or a header (request-log.ts).
  const logger: FastifyBaseLogger | undefined = deps.logger?.child(
    {},
    { serializers: requestLogSerializers },
  );
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    bodyLimit: config.BODY_LIMIT_BYTES,
    // request.ip is the socket's peer address; X-Forwarded-For is ignored (there is no TRUST_PROXY setting).
    trustProxy: false,
    // Errors raised before routing (a malformed URL) get the same { error } body as the rest...
    frameworkErrors: (err, request, reply) => {
      sendError(request, reply, toGatewayError(err));
    },
    // ...and so do those of the HTTP parser, and requests that arrive while closing (hook below).
    clientErrorHandler: answerClientError,
    return503OnClosing: false,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  acceptJsonOnly(app);

  app.setErrorHandler((err, request, reply) => {
    sendError(request, reply, toGatewayError(err, { bodyLimitBytes: config.BODY_LIMIT_BYTES }));
  });
  app.setNotFoundHandler((request, reply) => {
    sendError(request, reply, gatewayError("route_not_found"));
  });

  let closing = false;
  app.addHook("preClose", async () => {
    closing = true;
  });
  app.addHook("onRequest", async () => {
    if (closing)
      throw gatewayError("shutting_down", undefined, {
        headers: { connection: "close", "retry-after": "1" },
      });
  });

  // CORS first: its onRequest hook sets the headers before the rate limiter can refuse, so a 429
  // still reaches browser code. Preflights are answered by CORS and spend no tokens.
  await app.register(cors, corsOptions(config, app.log));
  const limiter = createRateLimiter({
    ratePerSecond: config.RATE_LIMIT_PER_SECOND,
    burst: config.RATE_LIMIT_BURST,
    ...(deps.now ? { now: deps.now } : {}),
  });
  app.addHook("onRequest", rateLimitHook(limiter));
  if (deps.metrics) app.addHook("onResponse", countRequest);

  // Every chain a request names is reached through its adapter, picked by chain id.
  const adapters = deps.chains ?? createChainAdapters(config.chains ?? []);
  const chains = createGatewayChains(adapters);
  if (!chains.delegating) {
    app.log.warn("no configured chain takes burner authorizations: every POST /sessions will be refused");
  }
  for (const { message, err } of chains.verifierWarnings()) app.log.warn({ err }, message);
  await app.register(swagger, openApiOptions);
  await app.register(healthRoutes, { health: deps.health });
  // What the session and settlement routes share: the same chains, ports, ids and clock.
  const session = {
    config,
    chains,
    serviceAddresses: serviceAddresses(adapters, deps.solana),
    commands: deps.commands,
    sessions: deps.sessions,
    newId: deps.newId ?? randomUUID,
    now: deps.now ?? Date.now,
  };
  const widgetGuards = config.MERCHANT_MODE !== "off" ? deps.merchants?.guards : undefined;
  const checkout = config.MERCHANT_MODE !== "off" ? deps.merchants?.checkout : undefined;
  await app.register(sessionRoutes, {
    ...session,
    widgetOwner: widgetGuards && ((request) => widgetGuards.publishableKey(request)),
    widgetSettings: checkout?.settings,
  });
  const checkoutAccess = checkout &&
    deps.merchants && {
      guards: deps.merchants.guards,
      resources: checkout.resources,
      destinations: checkout.settings.destinations,
    };
  const solana = deps.solana && {
    ...session,
    solana: deps.solana,
    checkout: checkoutAccess,
    stealthOf: checkout?.stealthOf,
  };
  const settlement = {
    ...session,
    live: deps.live,
    chainReads: deps.chainReads ?? chains.reads,
    checkout: checkoutAccess,
    solanaCommit: solana && solanaCommit(solana),
  };
  await app.register(settlementRoutes, settlement);
  if (solana) await app.register(solanaRoutes, solana);
  if (solana) await app.register(solanaRefundRoutes, { ...solana, live: deps.live });
  if (deps.solanaStealthWithdrawals)
    await app.register(solanaStealthWithdrawRoutes, {
      withdrawals: deps.solanaStealthWithdrawals,
      registry: checkout?.stealthRegistry,
      enabled: config.STEALTH_ENABLED,
      chainIds: (config.chains ?? []).map((c) => c.chainId),
    });
  await app.register(refundRoutes, settlement);
  await app.register(providerRoutes, {
    providers: deps.providers ?? {},
    sessions: deps.sessions,
    evmChains: evmChainsOf(config.chains ?? []),
    slippageBps: config.QUOTE_SLIPPAGE_BPS,
    checkout: checkoutAccess,
  });
  if (deps.stealthWithdrawals)
    await app.register(stealthWithdrawRoutes, {
      withdrawals: deps.stealthWithdrawals,
      registry: checkout?.stealthRegistry,
      enabled: config.STEALTH_ENABLED,
      chainIds: (config.chains ?? []).map((c) => c.chainId),
    });
  await app.register(eventRoutes, {
    sessions: deps.sessions,
    live: deps.live,
    keepAliveMs: config.SSE_KEEPALIVE_MS,
    maxStreamsPerClient: config.SSE_MAX_STREAMS_PER_IP,
    maxStreamLifetimeMs: config.SSE_MAX_LIFETIME_MS,
    ...(checkoutAccess ? { streamAccess: checkoutStreamAccess(checkoutAccess) } : {}),
  });
  if (checkout && checkoutAccess && deps.merchants) {
    await app.register(checkoutMerchantRoutes, {
      guards: deps.merchants.guards,
      checkout: checkout.sessions,
      settings: checkout.settings,
      sessions: deps.sessions,
      mode: checkout.mode,
      chainIds: (config.chains ?? []).map((c) => c.chainId),
      solana: deps.solana,
      feeBps: config.PLATFORM_FEE_BPS,
      stealthEnabled: config.STEALTH_ENABLED,
    });
    await app.register(merchantSettingsRoutes, {
      guards: deps.merchants.guards,
      settings: checkout.settings,
    });
    if (checkout.stealthOf)
      await app.register(stealthSessionRoutes, {
        guards: deps.merchants.guards,
        stealthOf: checkout.stealthOf,
        enabled: config.STEALTH_ENABLED,
        chainIds: (config.chains ?? []).map((c) => c.chainId),
      });
    await app.register(stealthMetaRoutes, {
      guards: deps.merchants.guards,
      admin: checkout.settings,
      solanaStealthKey: parseSolanaStealthKey,
      enabled: config.STEALTH_ENABLED,
      chainIds: (config.chains ?? []).map((c) => c.chainId),
    });
    await app.register(registerRoutes, {
      ...session,
      guards: deps.merchants.guards,
      resources: checkout.resources,
    });
  }
  if (deps.merchants) {
    const { admin, guards } = deps.merchants;
    await app.register(merchantRoutes, { config, admin, guards });
  }
  if (deps.merchants && deps.webhookDeliveries && config.MERCHANT_MODE !== "off") {
    await app.register(webhookDeliveryRoutes, {
      guards: deps.merchants.guards,
      deliveries: deps.webhookDeliveries,
      now: deps.now ?? Date.now,
    });
  }
  if (deps.merchants && deps.merchantEvents && config.MERCHANT_MODE !== "off") {
    await app.register(merchantEventRoutes, { guards: deps.merchants.guards, events: deps.merchantEvents });
  }
  if (deps.merchants?.webhookEndpoints && config.MERCHANT_MODE !== "off") {
    await app.register(webhookEndpointRoutes, {
      guards: deps.merchants.guards,
      endpoints: deps.merchants.webhookEndpoints,
      policy: urlPolicyFor(config),
      lookupTimeoutMs: config.WEBHOOK_CONNECT_TIMEOUT_MS,
    });
  }
  if (deps.subscriptions && config.MERCHANT_MODE !== "off") {
    await app.register(subscriptionRoutes, deps.subscriptions);
    await app.register(payerSubscriptionRoutes, { admin: deps.subscriptions.admin });
  }
  if (deps.links && checkout && deps.merchants && config.MERCHANT_MODE !== "off") {
    await registerLinkRoutes(app, {
      links: deps.links,
      guards: deps.merchants.guards,
      merchants: deps.merchants.admin,
      checkout: checkout.sessions,
      destinations: checkout.settings.destinations,
      chains,
      solana: deps.solana && {
        port: deps.solana,
        name: config.chains?.find((c) => c.chainId === deps.solana?.chainId)?.name ?? "Solana",
        feeBps: config.PLATFORM_FEE_BPS,
      },
      publicUrl: config.PUBLIC_URL,
      now: deps.now ?? Date.now,
    });
  }
  if (deps.operator && config.OPERATOR_SECRET)
    await app.register(operatorRoutes, { operator: deps.operator, secret: config.OPERATOR_SECRET });
  await app.register(docsRoutes);
  return app;
}

function sendError(request: FastifyRequest, reply: FastifyReply, err: GatewayError): void {
  if (err.code === "internal") request.log.error({ err: err.cause ?? err }, "request failed");
  else if (err.code === "service_unavailable") request.log.warn({ err: err.cause }, err.message);
  else request.log.info({ code: err.code, status: err.status }, err.message);
  reply.code(err.status).headers(err.headers).send({ error: err.message });
}

function answerClientError(err: Error, socket: Duplex): void {
  if ((err as NodeJS.ErrnoException).code === "ECONNRESET" || socket.destroyed) return;
  const e = fromClientError(err);
  const body = JSON.stringify({ error: e.message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

/** Bodies are JSON and nothing else (any other media type is a 415); no key may name the prototype. */
export function acceptJsonOnly(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, parseJson(String(body)));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** JSON.parse, refusing any key that could reach an object's prototype, at any depth. */
export function parseJson(text: string): unknown {
  if (text.length === 0) throw gatewayError("invalid_json", "the body is empty");
  try {
    return JSON.parse(text, (key, value) => {
      if (FORBIDDEN_KEYS.has(key)) throw gatewayError("forbidden_key");
      return value;
    });
  } catch (err) {
    if (err instanceof Error && err.name === "GatewayError") throw err;
    throw gatewayError("invalid_json", undefined, { cause: err });
  }
}

function corsOptions(config: Config, log: FastifyInstance["log"]): FastifyCorsOptions {
  // Browsers send origins without a trailing slash; a wildcard is never honoured.
  const origins = config.CORS_ALLOWED_ORIGINS.map((o) => o.replace(/\/+$/, ""));
  if (origins.includes("*")) log.warn("CORS_ALLOWED_ORIGINS: '*' is ignored; list the allowed origins");
  const allowed = origins.filter((o) => o !== "*");
  return {
    // false: no CORS headers at all, and preflights fall through to a 404.
    origin: allowed.length > 0 ? allowed : false,
    methods: ["GET", "HEAD", "POST"],
    allowedHeaders: ["Authorization", "X-Client-Secret", "Idempotency-Key", "Content-Type"],
    exposedHeaders: ["Retry-After"],
    maxAge: 600,
    // A malformed preflight gets the ordinary treatment instead of a text/plain 400.
    strictPreflight: false,
  };
}
