import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { MerchantSettings } from "../types.ts";

export interface GetSettingsParameters {
  signal?: AbortSignal | undefined;
}

export type GetSettingsReturnType = MerchantSettings;
export type GetSettingsErrorType = ApiError;

/**
 * The merchant's settings (`GET /v1/settings`); never set: `p2p_pinned_destinations_only` false.
 *
 * @example
 * const { p2p_pinned_destinations_only } = await getSettings(client);
 */
export async function getSettings(
  client: MerchantClient,
  params: GetSettingsParameters = {},
): Promise<GetSettingsReturnType> {
  return client.request<MerchantSettings>({ method: "GET", path: "/v1/settings", signal: params.signal });
}
