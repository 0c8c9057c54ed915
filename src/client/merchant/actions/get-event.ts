import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { MerchantEvent } from "../types.ts";

export interface GetEventParameters {
  /** The event's id (`evt_…`). */
  id: string;
  signal?: AbortSignal | undefined;
}

export type GetEventReturnType = MerchantEvent;
/**
 * An unknown id, one older than 30 days and another merchant's are the same `http` ApiError with
 * status 404 (`event_not_found`).
 */
export type GetEventErrorType = ApiError;

/**
 * One event of the merchant's last 30 days (`GET /v1/events/:id`).
 *
 * @example
 * const { type, data } = await getEvent(client, { id: "evt_0f3c9a…" });
 */
export async function getEvent(
  client: MerchantClient,
  params: GetEventParameters,
): Promise<GetEventReturnType> {
  return client.request<MerchantEvent>({
    method: "GET",
    path: `/v1/events/${encodeURIComponent(params.id)}`,
    signal: params.signal,
  });
}
