import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Registry } from "prom-client";
import { httpDuration, httpRequests } from "../../ops/metrics.ts";

/** onResponse hook at the root: one series per route pattern (not per URL), whatever the session id. */
export async function countRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const route = request.routeOptions.url ?? "unmatched";
  httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
  httpDuration.observe({ route }, reply.elapsedTime / 1000);
}

/** GET /metrics in the Prometheus text format. Not rate limited, like /health. */
export const metricsRoutes: FastifyPluginAsync<{ registry: Registry }> = async (app, opts) => {
  app.get(
    "/metrics",
    { config: { rateLimitExempt: true }, schema: { hide: true } },
    async (_request, reply) => {
      reply.header("content-type", opts.registry.contentType);
      return opts.registry.metrics();
    },
  );
};
