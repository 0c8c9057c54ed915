import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  deliveryListQuerySchema,
  deliveryListSchema,
  deliveryParamsSchema,
  deliverySchema,
} from "../../api/webhook-deliveries.ts";
import { errorSchema } from "../../api/wire.ts";
import type { AttemptRow, DeliveryRow } from "../../store/webhook-deliveries.ts";
import { type Guards, requireSecretKey } from "../auth.ts";
import { gatewayError } from "../errors.ts";

/** What the routes read and change of the delivery ledger (src/store/webhook-deliveries.ts). */
export interface DeliveryLog {
  get(idempotencyKey: string): Promise<DeliveryRow | null>;
  forMerchant(merchantId: string, limit: number): Promise<DeliveryRow[]>;
  attempts(idempotencyKey: string): Promise<AttemptRow[]>;
  redeliver(idempotencyKey: string, merchantId: string, nowMs: number): Promise<boolean>;
}

export interface WebhookDeliveryRouteOptions {
  guards: Guards;
  deliveries: DeliveryLog;
  now: () => number;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

const errors = { 401: errorSchema, 404: errorSchema, 409: errorSchema, 503: errorSchema };

async function view(deliveries: DeliveryLog, row: DeliveryRow) {
  const log = await deliveries.attempts(row.idempotencyKey);
  return {
    id: row.idempotencyKey,
    event_type: row.eventType,
    session_id: row.sessionId,
    state: row.state,
    attempts: row.attempts,
    next_retry_at: row.state === "pending" ? iso(row.nextRetryAt) : null,
    last_status: row.lastStatus,
    last_error: row.lastError,
    created_at: iso(row.createdAt) as string,
    attempt_log: log
      .sort((a, b) => a.startedAt - b.startedAt)
      .map((a) => ({
        attempt: a.attempt,
        started_at: iso(a.startedAt) as string,
        url: a.url,
        address: a.address,
        status_code: a.statusCode,
        duration_ms: a.durationMs,
        error: a.error,
      })),
  };
}

/**
 * The delivery log and manual redelivery (issue 11, "beyond the spec"), under the secret key: a
 * merchant sees only its own deliveries; another merchant's is a 404, as the interface's rule for
 * resources of another merchant says. Registered only in merchant mode, with the merchant routes.
 */
export const webhookDeliveryRoutes: FastifyPluginAsyncZod<WebhookDeliveryRouteOptions> = async (
  app,
  opts,
) => {
  const { guards, deliveries, now } = opts;
  const principalOf = requireSecretKey(app, guards);
  const merchantOf = (request: FastifyRequest): string => principalOf(request).merchantId;
  const owned = async (request: FastifyRequest, id: string): Promise<DeliveryRow> => {
    const row = await deliveries.get(id);
    if (!row || row.merchantId !== merchantOf(request)) throw gatewayError("delivery_not_found");
    return row;
  };

  app.get(
    "/v1/webhook_deliveries",
    {
      schema: {
        summary: "The merchant's webhook deliveries, newest first, each with its attempts",
        querystring: deliveryListQuerySchema,
        response: { 200: deliveryListSchema, ...errors },
      },
    },
    async (request) => {
      const rows = await deliveries.forMerchant(merchantOf(request), request.query.limit);
      rows.sort((a, b) => b.createdAt - a.createdAt);
      return { data: await Promise.all(rows.map((r) => view(deliveries, r))) };
    },
  );

  app.get(
    "/v1/webhook_deliveries/:id",
    {
      schema: {
        summary: "One delivery with its attempts",
        params: deliveryParamsSchema,
        response: { 200: deliverySchema, ...errors },
      },
    },
    async (request) => view(deliveries, await owned(request, request.params.id)),
  );

  app.post(
    "/v1/webhook_deliveries/:id/redeliver",
    {
      schema: {
        summary: "Send a delivery that ended failed again: five new attempts, the same Idempotency-Key",
        params: deliveryParamsSchema,
        response: { 200: deliverySchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const row = await owned(request, id);
      if (!(await deliveries.redeliver(id, row.merchantId, now()))) throw gatewayError("delivery_not_failed");
      return view(deliveries, (await deliveries.get(id)) ?? row);
    },
  );
};
