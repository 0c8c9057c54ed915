import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * What the gateway's log says of a request: the method, the route's pattern and, on a session's
 * routes, the session id. Never the URL as sent (the checkout event stream carries `pk` and the
 * `client_secret` in its query string, since a browser EventSource cannot send headers) and never a
 * header (Authorization holds `sk_` keys and the operator secret, X-Client-Secret a `cs_`). Fastify's
 * own request lines ("incoming request", "request completed") go through these serializers.
 */
export interface RequestLogFields {
  method: string;
  /** The matched route's pattern (`/sessions/:id/events`), or null when no route matched. */
  route: string | null;
  session_id?: string;
  remoteAddress: string;
}

/** Routes whose `:id` is a session id. */
const SESSION_ROUTE = /^\/(?:sessions|v1\/payment_sessions)\/:id(?:\/|$)/;

export function requestLogFields(request: FastifyRequest): RequestLogFields {
  const route = request.routeOptions?.url ?? null;
  const id = (request.params as { id?: unknown } | undefined)?.id;
  return {
    method: request.method,
    route,
    ...(route !== null && SESSION_ROUTE.test(route) && typeof id === "string" ? { session_id: id } : {}),
    remoteAddress: request.ip,
  };
}

/** pino serializers for the gateway's logger; they replace fastify's, which log `req.url` whole. */
export const requestLogSerializers = {
  req: requestLogFields,
  res: (reply: FastifyReply) => ({ statusCode: reply.statusCode }),
};
