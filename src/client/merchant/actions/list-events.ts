import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { EventPage } from "../types.ts";

export interface ListEventsParameters {
  /** Events per page, 1 to 100. Default (the service's) 10. */
  limit?: number | undefined;
  /** The `id` of the last event of the previous page: the answer is the page after it. */
  startingAfter?: string | undefined;
  /** Only events of exactly this type, e.g. `payment.succeeded`. */
  type?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type ListEventsReturnType = EventPage;
/**
 * An `http` ApiError with status 400: `invalid_request` for a bad parameter,
 * `starting_after_unknown` for a cursor that names no event of the merchant's last 30 days.
 */
export type ListEventsErrorType = ApiError;

/**
 * One page of the merchant's events of the last 30 days (`GET /v1/events`), newest first:
 * `{ data, has_more }`. Each event's `data` is the webhook body as delivered, and its
 * `idempotency_key` the delivery's, so events that also came by webhook can be skipped. To walk
 * every page, `allEvents` does the paging.
 *
 * @example
 * const page = await listEvents(client, { limit: 100, type: "payment.succeeded" });
 * const next = page.has_more ? await listEvents(client, { startingAfter: page.data.at(-1)?.id }) : null;
 */
export async function listEvents(
  client: MerchantClient,
  params: ListEventsParameters = {},
): Promise<ListEventsReturnType> {
  const query = new URLSearchParams();
  if (params.limit !== undefined) query.set("limit", String(params.limit));
  if (params.startingAfter !== undefined) query.set("starting_after", params.startingAfter);
  if (params.type !== undefined) query.set("type", params.type);
  const search = query.toString();
  return client.request<EventPage>({
    method: "GET",
    path: search === "" ? "/v1/events" : `/v1/events?${search}`,
    signal: params.signal,
  });
}
