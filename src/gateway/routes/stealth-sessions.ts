import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { sessionParamsSchema } from "../../api/sessions.ts";
import {
  type StealthAnnouncementObject,
  stealthAnnouncementsSchema,
} from "../../api/stealth-announcements.ts";
import { errorSchema } from "../../api/wire.ts";
import type { Session } from "../../domain/types.ts";
import { bearerToken, type Guards } from "../auth.ts";
import { isCheckoutSession } from "../checkout.ts";
import { gatewayError } from "../errors.ts";
import { requireStealth } from "./stealth-meta.ts";

/** What GET /sessions/:id/stealth reads of a session's state. */
export type SessionStealth = Pick<
  Session,
  | "id"
  | "flow"
  | "merchantId"
  | "clientSecretHash"
  | "destChainId"
  | "pinnedDestinations"
  | "stealthDestinations"
  | "stealthAnnounced"
>;

export interface StealthSessionRouteOptions {
  guards: Guards;
  /** The session's state from the read model, or null when there is no such session. */
  stealthOf: (sessionId: string) => Promise<SessionStealth | null>;
  enabled: boolean;
  chainIds: readonly number[];
}

/**
 * A Flow D session's announcements (docs/STEALTH.md), one per scheme its merchant registered keys
 * for: what the recipient needs to find the payment, also readable on chain once announced. Behind
 * the checkout guard (pk_ and cs_), like the other checkout routes, or the owning merchant's sk_ (its
 * server reads its sessions with the merchant library); 404 for a session that is not Flow D.
 */
export const stealthSessionRoutes: FastifyPluginAsyncZod<StealthSessionRouteOptions> = async (app, opts) => {
  app.get(
    "/sessions/:id/stealth",
    {
      schema: {
        summary: "A Flow D session's stealth announcements, one per scheme",
        params: sessionParamsSchema,
        response: {
          200: stealthAnnouncementsSchema,
          ...Object.fromEntries([400, 401, 403, 404, 503].map((s) => [s, errorSchema])),
        },
      },
    },
    async (request, reply) => {
      requireStealth(opts.enabled, opts.chainIds);
      const state = await opts.stealthOf(request.params.id);
      if (!state) throw gatewayError("session_not_found");
      if (isCheckoutSession({ merchant_id: state.merchantId, flow: state.flow })) {
        if (bearerToken(request.headers.authorization)?.startsWith("sk_")) {
          // Another merchant's session: not found, so existence cannot be probed.
          const { merchantId } = await opts.guards.secretKey(request);
          if (merchantId !== state.merchantId) throw gatewayError("session_not_found");
        } else await opts.guards.checkout(request, state);
      }
      if (state.stealthDestinations.length === 0) throw gatewayError("stealth_not_found");
      reply.header("cache-control", "no-store");
      return { announcements: announcementsOf(state) };
    },
  );
};

/** The session's announcements as the route answers them. */
export function announcementsOf(state: SessionStealth): StealthAnnouncementObject[] {
  return state.stealthDestinations.map((d) => {
    const announced = state.stealthAnnounced.find((a) => a.scheme === d.scheme);
    return {
      scheme: d.scheme,
      ephemeral_pubkey: d.ephemeralPubkey,
      view_tag: d.viewTag,
      stealth_address: d.stealthAddress,
      chain_id: announced?.chainId ?? chainOf(state, d.stealthAddress),
      tx: announced?.txHash ?? null,
    };
  });
}

/**
 * The chain a destination is paid on: the session's once its deposit chose one, else the one chain
 * every pin to this address names; null while several are possible (or none).
 */
function chainOf(state: SessionStealth, address: string): number | null {
  const pins = state.pinnedDestinations.filter((p) => p.destAddress === address);
  if (state.destChainId !== null && pins.some((p) => p.destChainId === state.destChainId))
    return state.destChainId;
  const chains = new Set(pins.map((p) => p.destChainId));
  return chains.size === 1 ? (pins[0]?.destChainId ?? null) : null;
}
