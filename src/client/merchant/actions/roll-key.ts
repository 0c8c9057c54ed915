import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { KeyType, RolledKey } from "../types.ts";

export interface RollKeyParameters {
  /** The key type to roll. Default `secret`. */
  type?: KeyType | undefined;
  signal?: AbortSignal | undefined;
}

export type RollKeyReturnType = RolledKey;
/**
 * An `http` ApiError: 401 when the client's key is no longer active (a concurrent roll won), or a
 * `network`/`timeout` ApiError or a 503 after which the roll may have been made (see below).
 */
export type RollKeyErrorType = ApiError;

/**
 * Rolls the merchant's key of a type (`POST /v1/keys/roll`) and answers the new key, once: the
 * previous key of that type is revoked at once. Rolling the secret key revokes the key this
 * client was made with, so make a new client with the answered key.
 *
 * Tried once, never retried: a roll is not idempotent, and a retry after a lost answer would come
 * with the key the lost roll revoked (401) and hide what happened. After a `network`, `timeout` or
 * 503 error, `getMerchant` tells: 401 means the roll was made and its key is lost (the operator
 * rolls one: `merchant roll`); 200 means the key still works, so roll again.
 *
 * @example
 * const { key } = await rollKey(client);
 * const next = createMerchantClient({ baseUrl: client.baseUrl, secretKey: key });
 */
export async function rollKey(
  client: MerchantClient,
  params: RollKeyParameters = {},
): Promise<RollKeyReturnType> {
  return client.request<RolledKey>({
    method: "POST",
    path: "/v1/keys/roll",
    ...(params.type === undefined ? {} : { body: { type: params.type } }),
    attempts: 1,
    signal: params.signal,
  });
}
