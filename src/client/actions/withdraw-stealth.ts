import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { StealthWithdrawBody, StealthWithdrawResponse } from "../types.ts";

export interface WithdrawStealthParameters {
  /** What `signStealthWithdrawal` returned. */
  withdrawal: StealthWithdrawBody;
  signal?: AbortSignal | undefined;
}

/** `tx_hash` of the relayed withdrawal (mined), `destination`, `amount` delivered and `fee` paid. */
export type WithdrawStealthReturnType = StealthWithdrawResponse;
/** 4xx when the service refuses (a signature, the fee, the balance, a replay); 502 when the chain did not answer. */
export type WithdrawStealthErrorType = ApiError;

/**
 * Sends a signed stealth withdrawal (`POST /stealth/withdraw`); the service checks it, relays it through
 * StealthRelay and answers once it is mined. Retried by the client's rules: the service relays one
 * transaction per authorization, so a retry never withdraws twice (a retry after it mined is a 409).
 *
 * @example
 * import { signStealthWithdrawal, withdrawStealth } from "deposit-settlement/client";
 * const { tx_hash } = await withdrawStealth(client, { withdrawal: await signStealthWithdrawal({ ... }) });
 */
export async function withdrawStealth(
  client: ApiClient,
  params: WithdrawStealthParameters,
): Promise<WithdrawStealthReturnType> {
  return client.request<StealthWithdrawResponse>({
    method: "POST",
    path: "/stealth/withdraw",
    body: params.withdrawal,
    signal: params.signal,
  });
}
