import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { Merchant } from "../types.ts";

export interface GetMerchantParameters {
  signal?: AbortSignal | undefined;
}

export type GetMerchantReturnType = Merchant;
/** A missing, revoked or wrong key is an `http` ApiError with status 401 (not retried). */
export type GetMerchantErrorType = ApiError;

/**
 * Reads the merchant the client's secret key belongs to (`GET /v1/merchant`): its id, name,
 * e-mail, mode and keys (the publishable key itself; of a secret key only its last four).
 *
 * @example
 * import { createMerchantClient, getMerchant } from "deposit-settlement/merchant";
 * const client = createMerchantClient({ baseUrl: "http://127.0.0.1:8080", secretKey: "sk_test_…" });
 * const { id, keys } = await getMerchant(client);
 */
export async function getMerchant(
  client: MerchantClient,
  params: GetMerchantParameters = {},
): Promise<GetMerchantReturnType> {
  return client.request<Merchant>({ method: "GET", path: "/v1/merchant", signal: params.signal });
}
