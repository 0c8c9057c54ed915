import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  createPaymentLinkBodySchema,
  linkParamsSchema,
  type PaymentLinkObject,
  paymentLinkSchema,
} from "../../api/payment-links.ts";
import { errorSchema } from "../../api/wire.ts";
import type { LinkRow } from "../../store/payment-links.ts";
import type { LinkAdmin } from "../admin/link-admin.ts";
import { type Guards, requireSecretKey } from "../auth.ts";
import { gatewayError } from "../errors.ts";

const errors = { 400: errorSchema, 401: errorSchema, 404: errorSchema, 409: errorSchema, 503: errorSchema };

export interface PaymentLinkRouteOptions {
  guards: Guards;
  links: LinkAdmin;
  /** What the merchant lacks to be paid through a link now (domain/merchant/readiness.ts), or null. */
  setupMissing(merchantId: string): Promise<string | null>;
  /** Where the public /links/:slug routes are reached: PUBLIC_URL, or the request's own origin. */
  publicUrl: string | undefined;
  now: () => number;
}

/** The link as the merchant API shows it (Stripe's payment link, in USDC). */
export function paymentLinkObject(row: LinkRow, baseUrl: string): PaymentLinkObject {
  return {
    id: row.id,
    object: "payment_link",
    active: row.deactivatedAt === null,
    amount: row.amount,
    currency: "usdc",
    description: row.description,
    expires_at: row.expiresAt === null ? null : Math.floor(row.expiresAt / 1000),
    created: Math.floor(row.createdAt / 1000),
    url: `${baseUrl.replace(/\/+$/, "")}/links/${encodeURIComponent(row.slug)}`,
  };
}

/**
 * The merchant's payment links (issue 11 item 6), under the secret key, merchant mode only: create
 * (the slug is generated), read, deactivate. A link is its own event-sourced entity; each route
 * answers once the projection shows the change. Another merchant's link is 404, as an unknown one.
 */
export const paymentLinkRoutes: FastifyPluginAsyncZod<PaymentLinkRouteOptions> = async (app, opts) => {
  const principalOf = requireSecretKey(app, opts.guards);
  const baseOf = (request: { protocol: string; host: string }) =>
    opts.publicUrl ?? `${request.protocol}://${request.host}`;

  app.post(
    "/v1/payment_links",
    {
      schema: {
        summary: "Create a payment link: a hosted page that takes a fixed USDC amount",
        body: createPaymentLinkBodySchema,
        response: { 200: paymentLinkSchema, ...errors },
      },
    },
    async (request) => {
      const { amount, description, expires_at } = request.body;
      if (expires_at !== undefined && expires_at * 1000 <= opts.now())
        throw gatewayError("invalid_request", "body.expires_at: must be in the future");
      const { merchantId } = principalOf(request);
      // A link nobody could pay is refused now, not discovered by its first payer.
      const missing = await opts.setupMissing(merchantId);
      if (missing !== null) throw gatewayError("merchant_not_ready", missing);
      const row = await opts.links.create(merchantId, {
        amount,
        description: description ?? null,
        expiresAt: expires_at === undefined ? null : expires_at * 1000,
      });
      return paymentLinkObject(row, baseOf(request));
    },
  );

  app.get(
    "/v1/payment_links/:id",
    {
      schema: {
        summary: "A payment link of the merchant's",
        params: linkParamsSchema,
        response: { 200: paymentLinkSchema, ...errors },
      },
    },
    async (request) => {
      const row = await opts.links.get(principalOf(request).merchantId, request.params.id);
      if (!row) throw gatewayError("link_not_found");
      return paymentLinkObject(row, baseOf(request));
    },
  );

  app.post(
    "/v1/payment_links/:id/deactivate",
    {
      schema: {
        summary: "Deactivate a payment link: it takes no more sessions (410); again changes nothing",
        params: linkParamsSchema,
        response: { 200: paymentLinkSchema, ...errors },
      },
    },
    async (request) => {
      const row = await opts.links.deactivate(principalOf(request).merchantId, request.params.id);
      return paymentLinkObject(row, baseOf(request));
    },
  );
};
