import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { Destination } from "../types.ts";

export interface ListDestinationsParameters {
  signal?: AbortSignal | undefined;
}

export type ListDestinationsReturnType = Destination[];
export type ListDestinationsErrorType = ApiError;

/**
 * The merchant's pinned destinations (`GET /v1/destinations`), one per source chain, in chain id
 * order. Answers the list, not the `{ data }` envelope; empty when nothing is pinned.
 *
 * @example
 * const pinned = new Set((await listDestinations(client)).map((d) => d.source_chain_id));
 */
export async function listDestinations(
  client: MerchantClient,
  params: ListDestinationsParameters = {},
): Promise<ListDestinationsReturnType> {
  const { data } = await client.request<{ data: Destination[] }>({
    method: "GET",
    path: "/v1/destinations",
    signal: params.signal,
  });
  return data;
}
