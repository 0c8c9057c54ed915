import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";

export interface RevokeKeyParameters {
  /** The key's id (`key_…`), from the merchant record's `keys` or a roll's answer. */
  keyId: string;
  signal?: AbortSignal | undefined;
}

export type RevokeKeyReturnType = undefined;
/** A key the merchant does not have is an `http` ApiError with status 404 (`key_not_found`). */
export type RevokeKeyErrorType = ApiError;

/**
 * Revokes one of the merchant's keys (`POST /v1/keys/:key_id/revoke`, 204): it fails on the next
 * request. Revoking the client's own secret key leaves the merchant without one: roll instead.
 *
 * @example
 * const merchant = await getMerchant(client);
 * const pk = merchant.keys.find((k) => k.type === "publishable" && k.revoked_at === null);
 * if (pk) await revokeKey(client, { keyId: pk.id });
 */
export async function revokeKey(
  client: MerchantClient,
  params: RevokeKeyParameters,
): Promise<RevokeKeyReturnType> {
  await client.request<undefined>({
    method: "POST",
    path: `/v1/keys/${encodeURIComponent(params.keyId)}/revoke`,
    signal: params.signal,
  });
}
