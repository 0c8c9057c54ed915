import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { MerchantEvent } from "../types.ts";
import { listEvents } from "./list-events.ts";

export interface AllEventsParameters {
  /** Only events of exactly this type, e.g. `payment.succeeded`. */
  type?: string | undefined;
  /** Events per request, 1 to 100. Default 100: the fewest requests. */
  pageSize?: number | undefined;
  /** Start after this event id instead of at the newest. */
  startingAfter?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type AllEventsReturnType = AsyncGenerator<MerchantEvent, void, undefined>;
/** listEvents' errors, thrown from the iteration at the page that failed (each page retried first). */
export type AllEventsErrorType = ApiError;

/**
 * Every event of the merchant's last 30 days, newest first, one page (`GET /v1/events`) at a time,
 * requested only as the loop reaches it: `break` stops the walk without another request. Each
 * event comes once. Events queued after the walk began are newer than its first page and are not
 * in it; to catch up, walk from the newest and stop at an id you have.
 *
 * @example
 * for await (const event of allEvents(client, { type: "payment.succeeded" })) {
 *   if (await seen(event.idempotency_key)) break;
 *   await handle(event.data);
 * }
 */
export async function* allEvents(
  client: MerchantClient,
  params: AllEventsParameters = {},
): AllEventsReturnType {
  let startingAfter = params.startingAfter;
  for (;;) {
    const page = await listEvents(client, {
      limit: params.pageSize ?? 100,
      startingAfter,
      type: params.type,
      signal: params.signal,
    });
    yield* page.data;
    const last = page.data.at(-1);
    // has_more with an empty page cannot happen; stopping there keeps a bad answer from looping.
    if (!page.has_more || last === undefined) return;
    startingAfter = last.id;
  }
}
