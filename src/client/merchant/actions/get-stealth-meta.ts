import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { StealthMeta } from "../types.ts";

export interface GetStealthMetaParameters {
  signal?: AbortSignal | undefined;
}

export type GetStealthMetaReturnType = StealthMeta;
/**
 * An `http` ApiError: 404 `stealth_meta_not_found` before any `setStealthMeta`; 403
 * `stealth_disabled` or `stealth_mainnet` on a service that offers no stealth.
 */
export type GetStealthMetaErrorType = ApiError;

/**
 * The merchant's stealth meta-address as stored (`GET /v1/stealth-meta`): `meta_address` and the
 * Solana keys, null when none were given.
 *
 * @example
 * const { meta_address } = await getStealthMeta(client);
 */
export async function getStealthMeta(
  client: MerchantClient,
  params: GetStealthMetaParameters = {},
): Promise<GetStealthMetaReturnType> {
  return client.request<StealthMeta>({ method: "GET", path: "/v1/stealth-meta", signal: params.signal });
}
