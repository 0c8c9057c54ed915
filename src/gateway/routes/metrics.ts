import type { FastifyReply, FastifyRequest } from "fastify";
import { httpDuration, httpRequests } from "../../ops/metrics.ts";

/**
 * onResponse hook at the root: one series per route pattern (not per URL), whatever the session id.
 * The series are served on the process's metrics port (src/ops/metrics-server.ts), never on the
 * API's: what the metrics say (the relayer's balances and free inventory among them) is the operator's.
 */
export async function countRequest(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const route = request.routeOptions.url ?? "unmatched";
  httpRequests.inc({ method: request.method, route, status: String(reply.statusCode) });
  httpDuration.observe({ route }, reply.elapsedTime / 1000);
}
