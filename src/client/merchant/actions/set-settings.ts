import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { MerchantSettings } from "../types.ts";

export interface SetSettingsParameters {
  /**
   * true: a P2P session created with your `pk_` (`POST /sessions`) must pay the destination you
   * pinned for its burner's chain, or it is refused (403 `destination_not_pinned`). Default false.
   */
  p2pPinnedDestinationsOnly: boolean;
  signal?: AbortSignal | undefined;
}

export type SetSettingsReturnType = MerchantSettings;
/** An `http` ApiError: 400 for a body the route refuses. */
export type SetSettingsErrorType = ApiError;

/**
 * Replaces the merchant's settings (`PUT /v1/settings`, the whole object). Answered once the
 * service holds the next `POST /sessions` to it.
 *
 * @example
 * await setSettings(client, { p2pPinnedDestinationsOnly: true }); // P2P only to your pins
 */
export async function setSettings(
  client: MerchantClient,
  params: SetSettingsParameters,
): Promise<SetSettingsReturnType> {
  return client.request<MerchantSettings>({
    method: "PUT",
    path: "/v1/settings",
    body: { p2p_pinned_destinations_only: params.p2pPinnedDestinationsOnly },
    signal: params.signal,
  });
}
