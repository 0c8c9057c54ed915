import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  webhookEndpointBodySchema,
  webhookEndpointSchema,
  webhookEndpointWithSecretSchema,
} from "../../api/webhook-endpoints.ts";
import { errorSchema, noContentSchema } from "../../api/wire.ts";
import {
  type Resolver,
  resolveTarget,
  type UrlPolicy,
  WebhookUrlRefused,
} from "../../webhooks/address-guard.ts";
import type { WebhookEndpointAdmin } from "../admin/merchant-admin.ts";
import { type Guards, requireSecretKey } from "../auth.ts";
import { gatewayError } from "../errors.ts";

export interface WebhookEndpointRouteOptions {
  guards: Guards;
  endpoints: WebhookEndpointAdmin;
  /** The same URL rule the webhooks worker applies at delivery (urlPolicyFor in address-guard.ts). */
  policy: UrlPolicy;
  /** DNS, replaceable in tests; the system resolver otherwise. */
  resolve?: Resolver;
  /** Bound on the URL's DNS look-up (the delivery's connect bound): a silent name server holds no request longer. */
  lookupTimeoutMs: number;
}

const errors = { 401: errorSchema, 404: errorSchema, 503: errorSchema };

/**
 * The merchant's one webhook endpoint (issue 11 item 5), under the secret key, merchant mode only.
 * PUT checks the URL as a delivery would (scheme, then every resolved address against the SSRF
 * ranges) so a merchant hears about a bad URL now, not from a failed delivery; the worker checks
 * again before each attempt, since DNS can change later. The configuration is event-sourced on the
 * merchant actor; the routes answer once the projection the worker reads shows the change.
 */
export const webhookEndpointRoutes: FastifyPluginAsyncZod<WebhookEndpointRouteOptions> = async (
  app,
  opts,
) => {
  const { endpoints, policy, resolve, lookupTimeoutMs } = opts;
  const principalOf = requireSecretKey(app, opts.guards);

  app.get(
    "/v1/webhook_endpoints",
    {
      schema: {
        summary: "The merchant's webhook endpoint, without its secret; null when none is set",
        response: { 200: webhookEndpointSchema.nullable(), ...errors },
      },
    },
    async (request, reply) => {
      // The interface: "returns the configured endpoint object or null".
      const endpoint = await endpoints.webhookEndpoint(principalOf(request).merchantId);
      return reply.type("application/json; charset=utf-8").send(endpoint ?? null);
    },
  );

  app.put(
    "/v1/webhook_endpoints",
    {
      schema: {
        summary: "Set or replace the webhook endpoint; answers a new whsec_ secret, once",
        body: webhookEndpointBodySchema,
        response: { 200: webhookEndpointWithSecretSchema, 400: errorSchema, ...errors },
      },
    },
    async (request) => {
      const merchantId = principalOf(request).merchantId;
      let url: string;
      try {
        const lookup = AbortSignal.timeout(lookupTimeoutMs);
        url = (await resolveTarget(request.body.url, policy, resolve, lookup)).url.href;
      } catch (err) {
        if (err instanceof WebhookUrlRefused) throw gatewayError("webhook_url_refused", err.message);
        throw err;
      }
      return endpoints.setWebhookEndpoint(merchantId, url);
    },
  );

  app.delete(
    "/v1/webhook_endpoints",
    { schema: { summary: "Remove the webhook endpoint", response: { 204: noContentSchema, ...errors } } },
    async (request, reply) => {
      if (!(await endpoints.removeWebhookEndpoint(principalOf(request).merchantId)))
        throw gatewayError("webhook_endpoint_not_found");
      return reply.code(204).send(null);
    },
  );
};
