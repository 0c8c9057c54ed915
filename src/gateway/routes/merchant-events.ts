import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { z } from "zod";
import {
  type EventView,
  eventListQuery,
  eventListSchema,
  eventParamsSchema,
  eventSchema,
  LIST_URL,
} from "../../api/events.ts";
import { errorSchema } from "../../api/wire.ts";
import { EVENT_ID } from "../../domain/webhooks.ts";
import type { EventCursor, MerchantEventRow } from "../../store/merchant-events.ts";
import { type Guards, requireSecretKey } from "../auth.ts";
import { gatewayError } from "../errors.ts";

/** What the routes read of the event list (src/store/merchant-events.ts). */
export interface EventList {
  get(id: string): Promise<MerchantEventRow | null>;
  page(
    merchantId: string,
    opts: { limit: number; after?: EventCursor | undefined; type?: string | undefined },
  ): Promise<MerchantEventRow[]>;
}

export interface MerchantEventRouteOptions {
  guards: Guards;
  events: EventList;
}

/** An event as the API shows it: the payload is the JSON text the webhook carried. */
export function eventView(row: MerchantEventRow): EventView {
  return {
    id: row.id,
    object: "event",
    type: row.type,
    created: Math.floor(row.createdAt / 1000),
    idempotency_key: row.idempotencyKey,
    session_id: row.sessionId,
    data: JSON.parse(row.payload) as Record<string, unknown>,
  };
}

/** A page from `limit + 1` rows read: the extra row, when there is one, only says there are more. */
export function listPage(rows: MerchantEventRow[], limit: number): z.infer<typeof eventListSchema> {
  return {
    object: "list",
    data: rows.slice(0, limit).map(eventView),
    has_more: rows.length > limit,
    url: LIST_URL,
  };
}

const errors = { 400: errorSchema, 401: errorSchema, 404: errorSchema };

/**
 * The event list (issue 11, "beyond the spec"): the merchant's events of the last 30 days, to
 * reconcile from whether or not its webhook endpoint was set or answering. Under the secret key;
 * another merchant's event is a 404, as the interface's rule for another merchant's resource says.
 * Registered only in merchant mode.
 */
export const merchantEventRoutes: FastifyPluginAsyncZod<MerchantEventRouteOptions> = async (app, opts) => {
  const { events } = opts;
  const principalOf = requireSecretKey(app, opts.guards);
  const owned = async (merchantId: string, id: string): Promise<MerchantEventRow | null> => {
    const row = await events.get(id);
    return row && row.merchantId === merchantId ? row : null;
  };

  app.get(
    LIST_URL,
    {
      schema: {
        summary: "The merchant's events of the last 30 days, newest first",
        querystring: eventListQuery,
        response: { 200: eventListSchema, ...errors },
      },
    },
    async (request) => {
      const { merchantId } = principalOf(request);
      const { limit, starting_after, type } = request.query;
      let after: EventCursor | undefined;
      if (starting_after !== undefined) {
        // Where the cursor's event stands in the list; one the merchant cannot read is no cursor.
        const row = await owned(merchantId, starting_after);
        if (!row) throw gatewayError("starting_after_unknown");
        after = row;
      }
      return listPage(await events.page(merchantId, { limit: limit + 1, after, type }), limit);
    },
  );

  app.get(
    `${LIST_URL}/:id`,
    {
      schema: {
        summary: "One event of the last 30 days",
        params: eventParamsSchema,
        response: { 200: eventSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      // An id that is no event id names no event: answered without a read.
      const row = EVENT_ID.test(id) ? await owned(principalOf(request).merchantId, id) : null;
      if (!row) throw gatewayError("event_not_found");
      return eventView(row);
    },
  );
};
