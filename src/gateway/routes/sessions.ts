import { createHash } from "node:crypto";
import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { zeroAddress } from "viem";
import {
  type CreateSessionBody,
  createSessionBodySchema,
  createSessionHeadersSchema,
  createSessionResponseSchema,
  sessionParamsSchema,
  sessionSchema,
} from "../../api/sessions.ts";
import { errorSchema } from "../../api/wire.ts";
import type { GatewayChains } from "../../chains/gateway-chains.ts";
import type { ServiceAddresses } from "../../chains/service-addresses.ts";
import type { Config } from "../../config.ts";
import type { CreateSession } from "../../domain/commands.ts";
import type { GatewayReply } from "../../records/gateway-replies.ts";
import type { MerchantSettingsAdmin } from "../admin/merchant-admin.ts";
import type { Principal } from "../auth.ts";
import { gatewayError, replyError } from "../errors.ts";
import type { CommandPort, SessionReadPort } from "../ports.ts";
import { type WidgetPolicy, widgetPolicy } from "../widget-policy.ts";

/** What the payer's, Solana and checkout routes share: the same chains, ports, ids and clock. */
export interface SessionContext {
  config: Config;
  /** The configured chains: where a burner's authorization and signatures are checked. */
  chains: GatewayChains;
  /** The service's own addresses: no burner may be one (src/chains/service-addresses.ts). */
  serviceAddresses: ServiceAddresses;
  commands: CommandPort;
  sessions: SessionReadPort;
  newId: () => string;
  /** Unix ms. */
  now: () => number;
}

export interface SessionRoutesOptions extends SessionContext {
  /**
   * Merchant mode: a POST /sessions with `Authorization: Bearer pk_…` comes from a merchant's widget;
   * the session is the merchant's (its webhooks fire). Absent: every session is anonymous.
   */
  widgetOwner?: ((request: FastifyRequest) => Promise<Principal>) | undefined;
  /**
   * What a pk-tagged session takes from its merchant: its pinned destinations (copied into the
   * session, so its webhooks can say whether it pays one of them) and its settings (pinned only).
   */
  widgetSettings?: Pick<MerchantSettingsAdmin, "destinations" | "settings"> | undefined;
}

/** POST /sessions and GET /sessions/:id: the anonymous session surface. */
export const sessionRoutes: FastifyPluginAsyncZod<SessionRoutesOptions> = async (app, opts) => {
  const { config, chains, commands, sessions, newId, now, widgetOwner, widgetSettings } = opts;
  /** The merchant of a pk-tagged request, checked before the body is read; null without the header. */
  const owners = new WeakMap<FastifyRequest, string>();

  app.post(
    "/sessions",
    {
      schema: {
        summary: "Register an anonymous deposit session",
        headers: createSessionHeadersSchema,
        body: createSessionBodySchema,
        response: {
          200: createSessionResponseSchema,
          400: errorSchema,
          404: errorSchema,
          409: errorSchema,
          413: errorSchema,
          415: errorSchema,
          429: errorSchema,
          500: errorSchema,
          503: errorSchema,
        },
      },
      preValidation: async (request) => {
        if (widgetOwner && request.headers.authorization !== undefined)
          owners.set(request, (await widgetOwner(request)).merchantId);
      },
    },
    async (request) => {
      const body = request.body;
      const merchantId = owners.get(request) ?? null;
      if (merchantId !== null && body.flow === "checkout")
        throw gatewayError(
          "invalid_request",
          "flow: a checkout session is created by the merchant's server (POST /v1/payment_sessions)",
        );
      // The merchant's pins and setting go on the command: the session core applies the pinned-only rule.
      const owner =
        merchantId === null
          ? null
          : {
              merchantId,
              ...(widgetSettings
                ? await widgetPolicy(widgetSettings, merchantId)
                : { pinnedDestinations: [], pinnedOnly: false }),
            };
      const issuedAt = now();
      refuseServiceBurner(opts.serviceAddresses, body.burner_address);
      await verifySignatures(body, chains, Math.floor(issuedAt / 1000));

      const key = request.headers["idempotency-key"];
      // A merchant's keys are its own: the same key from two merchants names two sessions.
      const scoped = key === undefined || merchantId === null ? key : `${merchantId}\n${key}`;
      const ids =
        scoped === undefined
          ? { sessionId: newId(), commandId: newId() }
          : {
              // Same key: same session. Same key and same body: same command, so the owner answers a
              // retry instead of applying it again; a reused key with another body gets session_exists.
              sessionId: uuidFrom("sessions.create/session", scoped),
              commandId: uuidFrom("sessions.create/command", `${scoped}\n${canonicalJson(body)}`),
            };
      const command = createSessionCommand(body, ids, issuedAt, config.SESSION_TTL_SECONDS, owner);
      const reply = await commands.send(command);
      return createdOrThrow(reply);
    },
  );

  app.get(
    "/sessions/:id",
    {
      schema: {
        summary: "Read a session",
        params: sessionParamsSchema,
        response: {
          200: sessionSchema,
          400: errorSchema,
          404: errorSchema,
          429: errorSchema,
          500: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const record = await sessions.get(request.params.id, { cached: true });
      if (record === null) throw gatewayError("session_not_found");
      // Polling clients must see the newest state: no HTTP cache may keep it.
      reply.header("cache-control", "no-store");
      return reply.type("application/json; charset=utf-8").serializer(serializeSession).send(record.session);
    },
  );
};

// A polled session is answered with the same cached object request after request (see
// src/projections/session-reads.ts): its body is serialised once, as the route's schema would.
const sessionBodies = new WeakMap<object, string>();

function serializeSession(session: object): string {
  let body = sessionBodies.get(session);
  if (body === undefined) {
    body = JSON.stringify(sessionSchema.parse(session));
    sessionBodies.set(session, body);
  }
  return body;
}

/**
 * 400 `burner_is_service_address` when `burner` (canonical spelling) is one of the service's own
 * addresses or one of the session's fee `sinks`: every route that names a burner asks this first.
 */
export function refuseServiceBurner(
  own: ServiceAddresses,
  burner: string,
  sinks: ReadonlyArray<string | null> = [],
): void {
  if (own.includes(burner, sinks))
    throw gatewayError(
      "burner_is_service_address",
      `burner_address: ${burner} is one of the service's own addresses (a relayer, the vault or a fee sink)`,
    );
}

async function verifySignatures(
  body: CreateSessionBody,
  chains: GatewayChains,
  nowSeconds: number,
): Promise<void> {
  const auth = await chains.checks.authorization(body.eip7702_auth, body.burner_address);
  if (!auth.ok) throw gatewayError(auth.code, auth.message);
  if (body.standing_refund !== undefined) {
    const refund = await chains.checks.standingRefund(body.standing_refund, body.burner_address, nowSeconds);
    if (!refund.ok) throw gatewayError(refund.code, refund.message);
  }
}

/**
 * The command for a session of POST /sessions: no app fee (the fee sink is the zero address); no
 * merchant unless a pk-tagged widget made it.
 */
export function createSessionCommand(
  body: CreateSessionBody,
  ids: { sessionId: string; commandId: string },
  issuedAt: number,
  ttlSeconds: number,
  /** The merchant of a pk-tagged widget's request and its pins as they are now; null: anonymous. */
  owner: ({ merchantId: string } & WidgetPolicy) | null = null,
): CreateSession {
  const refund = body.standing_refund;
  return {
    type: "CreateSession",
    data: {
      sessionId: ids.sessionId,
      flow: body.flow,
      merchantId: owner?.merchantId ?? null,
      burner: body.burner_address,
      auth: { ...body.eip7702_auth },
      destAddress: body.destination_address,
      destChainId: body.destination_chain,
      pinnedDestinations: owner?.pinnedDestinations ?? [],
      pinnedOnly: owner?.pinnedOnly ?? false,
      clientSecretHash: null,
      originChainId: null,
      appFeeRecipientSol: null,
      refundAddress: null,
      appFeeBps: 0,
      appFeeRecipient: zeroAddress,
      // Anonymous sessions name no amount: any positive deposit succeeds (docs/SETTLEMENT.md).
      expectedAmount: null,
      standingRefund: refund
        ? { to: refund.to, deadline: refund.deadline, signatures: { ...refund.signatures } }
        : null,
      stealth: body.stealth
        ? { ephemeralPubkey: body.stealth.ephemeral_pubkey, viewTag: body.stealth.view_tag }
        : null,
      stealthDestinations: null,
      expiresAt: Math.floor(issuedAt / 1000) + ttlSeconds,
    },
    metadata: { commandId: ids.commandId, issuedAt, replyTo: null },
  };
}

function createdOrThrow(reply: GatewayReply) {
  // The status answered comes from the reply's code, through the registry.
  const refused = replyError(reply);
  if (refused) throw refused;
  const session = reply.session?.session;
  if (session === undefined) throw new Error("the owner accepted CreateSession but sent no session");
  return { id: session.id, status: session.status, expires_at: session.expires_at };
}

/**
 * A UUID derived from a string (SHA-256, laid out as RFC 9562 version 8), so a retry carrying the
 * same Idempotency-Key names the same session. The namespace keeps session and command ids apart.
 */
export function uuidFrom(namespace: string, value: string): string {
  const b = createHash("sha256").update(namespace).update("\0").update(value).digest().subarray(0, 16);
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x80; // version 8
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80; // RFC 9562 variant
  const h = b.toString("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** JSON with object keys sorted, so two equal bodies fingerprint the same whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
