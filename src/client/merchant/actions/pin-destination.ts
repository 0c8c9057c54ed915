import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { Destination } from "../types.ts";

export interface PinDestinationParameters {
  /** The chain checkout money is found on. */
  sourceChainId: number;
  /** The 0x address it goes to. */
  destAddress: string;
  /** The chain `destAddress` is on. */
  destChainId: number;
  signal?: AbortSignal | undefined;
}

export type PinDestinationReturnType = Destination[];
/** An `http` ApiError: 400 for a chain that is not one of the service's or a malformed address. */
export type PinDestinationErrorType = ApiError;

/**
 * Pins where checkout money found on one source chain goes (`PUT /v1/destinations`), replacing
 * that chain's pin. Answers every pin of the merchant, by source chain (not the `{ data }`
 * envelope). A session takes the pins as they are at its creation, and its commit is checked
 * against the pin as it is then: re-pinning makes open sessions uncommittable (docs/MERCHANTS.md).
 *
 * @example
 * await pinDestination(client, { sourceChainId: 8453, destAddress: treasury, destChainId: 8453 });
 */
export async function pinDestination(
  client: MerchantClient,
  params: PinDestinationParameters,
): Promise<PinDestinationReturnType> {
  const { data } = await client.request<{ data: Destination[] }>({
    method: "PUT",
    path: "/v1/destinations",
    body: {
      source_chain_id: params.sourceChainId,
      dest_address: params.destAddress,
      dest_chain_id: params.destChainId,
    },
    signal: params.signal,
  });
  return data;
}
