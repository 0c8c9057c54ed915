import { createSession } from "better-sse";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  type StreamQuery,
  sessionParamsSchema,
  sessionSchema,
  streamQuerySchema,
} from "../../api/sessions.ts";
import { errorSchema } from "../../api/wire.ts";
import type { SessionStateRecord } from "../../records/session-state.ts";
import type { CheckoutResource, Guards } from "../auth.ts";
import { isCheckoutSession } from "../checkout.ts";
import { GatewayError, gatewayError } from "../errors.ts";
import type { LiveUpdatesPort, SessionReadPort } from "../ports.ts";
import { clientKey } from "../rate-limit.ts";
import { createStreamSlots } from "../stream-slots.ts";

export interface EventRoutesOptions {
  sessions: SessionReadPort;
  live: LiveUpdatesPort;
  /** Interval of the keep-alive comment (an empty `:` line). */
  keepAliveMs: number;
  /** Who may stream a session; defaults to `anonymousOnly`. */
  streamAccess?: StreamAccess;
  /** Open streams per client and each stream's lifetime (stream-slots.ts). */
  maxStreamsPerClient: number;
  maxStreamLifetimeMs: number;
}

/** The reconnection delay the stream asks for (its `retry:` field), on connect and when its lifetime ends. */
export const STREAM_RETRY_MS = 2000;

/** Decides whether a caller may stream a session: null to allow, an error to refuse. */
export type StreamAccess = (session: SessionStateRecord, query: StreamQuery) => Promise<GatewayError | null>;

/**
 * Without merchant mode: anonymous sessions stream openly, and a checkout session (merchant_id set)
 * is refused rather than left open.
 */
export const anonymousOnly: StreamAccess = async (record) => {
  const merchantId = (record.session as { merchant_id?: string | null }).merchant_id ?? null;
  if (merchantId === null) return null;
  return gatewayError("stream_auth_required", undefined, { headers: { "www-authenticate": "Bearer" } });
};

/**
 * Merchant mode: a checkout session streams to whoever shows its `pk` and `client_secret` query
 * parameters (a browser EventSource cannot send headers); anonymous sessions stay open.
 */
export function checkoutStreamAccess(checkout: {
  guards: Pick<Guards, "checkoutStream">;
  resources: (sessionId: string) => Promise<CheckoutResource | null>;
}): StreamAccess {
  return async (record, query) => {
    if (!isCheckoutSession(record.session)) return null;
    try {
      await checkout.guards.checkoutStream(query, await checkout.resources(record.session.id));
      return null;
    } catch (err) {
      if (err instanceof GatewayError) return err;
      throw err;
    }
  };
}

/**
 * GET /sessions/:id/events: Server-Sent Events (framing by better-sse). Every event is named `status`
 * and carries the Session object; its id is the session version. The current state goes out on
 * connect, then one event per later state whose status differs from the last one sent.
 */
export const eventRoutes: FastifyPluginAsyncZod<EventRoutesOptions> = async (app, opts) => {
  const { sessions, live, keepAliveMs, maxStreamLifetimeMs } = opts;
  const streamAccess = opts.streamAccess ?? anonymousOnly;
  const slots = createStreamSlots({
    maxPerClient: opts.maxStreamsPerClient,
    lifetimeMs: maxStreamLifetimeMs,
  });
  const open = new Set<() => void>();

  // An open stream never ends by itself; end them all so close() does not wait for clients.
  app.addHook("preClose", async () => {
    for (const end of open) end();
  });

  app.get(
    "/sessions/:id/events",
    {
      exposeHeadRoute: false,
      schema: {
        summary: "Stream a session's status changes",
        description:
          "text/event-stream. Events are named `status`; `data` is the Session object and `id` its version. " +
          "The current state is sent on connect, then one event per status change. Keep-alive: an empty " +
          "comment line (`:`) at the configured interval. A stream ends after its maximum lifetime (a `retry:` " +
          "field first); a client with too many open streams is answered 429 with `Retry-After`.",
        params: sessionParamsSchema,
        querystring: streamQuerySchema,
        response: {
          400: errorSchema,
          401: errorSchema,
          404: errorSchema,
          429: errorSchema,
          500: errorSchema,
        },
      },
    },
    async (request, reply) => {
      const id = request.params.id;
      // Taken before any await, so concurrent opens from one client cannot all pass the count.
      const slot = slots.acquire(clientKey(request.ip));
      if (!slot.ok) {
        const retryAfter = String(slot.retryAfterSeconds);
        throw gatewayError("too_many_streams", undefined, { headers: { "retry-after": retryAfter } });
      }
      // Subscribe before reading, so no state published in between is lost; hold updates until the
      // stream is open and the current state has gone out.
      const held: SessionStateRecord[] = [];
      let deliver: (record: SessionStateRecord) => void = (record) => held.push(record);
      const unsubscribe = live.subscribe(id, (record) => deliver(record));
      let hijacked = false;
      try {
        const current = await sessions.get(id, { cached: true });
        if (current === null) throw gatewayError("session_not_found");
        const refused = await streamAccess(current, request.query);
        if (refused !== null) throw refused;

        // From here the response is the stream's. Cleanup hangs on the response's own close, which
        // fires whether the client leaves, the gateway ends the stream on close(), or setup fails.
        reply.hijack();
        hijacked = true;
        const end = () => reply.raw.end();
        let lifetime: NodeJS.Timeout | undefined;
        const cleanUp = () => {
          clearTimeout(lifetime);
          unsubscribe();
          open.delete(end);
          slot.release();
        };
        open.add(end);
        reply.raw.once("close", cleanUp);
        if (reply.raw.destroyed) {
          cleanUp();
          return reply;
        }

        const sse = await createSession(request.raw, reply.raw, {
          keepAlive: keepAliveMs,
          retry: STREAM_RETRY_MS,
          // Every connection starts from the current state, so a Last-Event-ID has nothing to resume.
          trustClientEventId: false,
          headers: stringHeaders(reply.getHeaders()),
        });
        // The response schema strips anything the Session object does not name (secrets included).
        const send = (record: SessionStateRecord) =>
          sse.push(sessionSchema.parse(record.session), "status", String(record.version));
        let lastVersion = current.version;
        let lastStatus = current.session.status;
        send(current);
        // The lifetime's end: say when to come back, then end; the client reconnects to the current state.
        if (!reply.raw.destroyed)
          lifetime = setTimeout(() => {
            sse
              .batch((buffer) => {
                buffer.retry(STREAM_RETRY_MS).dispatch();
              })
              .catch(() => {})
              .finally(end);
          }, maxStreamLifetimeMs);

        deliver = (record) => {
          if (record.version <= lastVersion) return; // replayed or out of order: already covered
          lastVersion = record.version;
          if (record.session.status === lastStatus || !sse.isConnected) return;
          lastStatus = record.session.status;
          try {
            send(record);
          } catch (err) {
            request.log.error({ err, sessionId: id }, "could not send a session state");
          }
        };
        for (const record of held.splice(0)) deliver(record);
      } catch (err) {
        unsubscribe();
        if (!hijacked) {
          slot.release();
          throw err;
        }
        request.log.error({ err, sessionId: id }, "session event stream failed");
        reply.raw.destroy();
      }
      return reply;
    },
  );
};

/** Headers fastify already set on the reply (CORS), in the shape better-sse copies onto the stream. */
function stringHeaders(headers: Record<string, unknown>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) out[name] = value.map(String);
    else if (value !== undefined) out[name] = String(value);
  }
  return out;
}
