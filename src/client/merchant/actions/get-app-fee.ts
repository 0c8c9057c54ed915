import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { AppFee } from "../types.ts";

export interface GetAppFeeParameters {
  signal?: AbortSignal | undefined;
}

export type GetAppFeeReturnType = AppFee;
export type GetAppFeeErrorType = ApiError;

/**
 * The merchant's app fee (`GET /v1/app_fee`); none set is 0 to the zero address.
 *
 * @example
 * const { app_fee_bps } = await getAppFee(client);
 */
export async function getAppFee(
  client: MerchantClient,
  params: GetAppFeeParameters = {},
): Promise<GetAppFeeReturnType> {
  return client.request<AppFee>({ method: "GET", path: "/v1/app_fee", signal: params.signal });
}
