import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { RefundBody, RefundResponse } from "../types.ts";

export interface RefundParameters {
  id: string;
  /** What `signRefund` returned. */
  refund: RefundBody;
  signal?: AbortSignal | undefined;
}

/** `tx_hash` of the refund transaction the backend submitted, `to` and `token`. */
export type RefundReturnType = RefundResponse;
/** A 4xx when the service refuses (a bad signature, a refund while the session sweeps); 502 when the refund failed on chain. */
export type RefundErrorType = ApiError;

/**
 * Sends a burner-signed Refund (`POST /sessions/:id/refund`); the backend submits it with its own
 * provider and answers once the transaction is broadcast. Retried by the client's rules: the
 * service knows a Refund by its salt, so a retry never refunds twice.
 *
 * @example
 * import { refund, signRefund } from "deposit-settlement/client";
 * const { tx_hash } = await refund(client, { id, refund: await signRefund({ ... }) });
 */
export async function refund(client: ApiClient, params: RefundParameters): Promise<RefundReturnType> {
  return client.request<RefundResponse>({
    method: "POST",
    path: `/sessions/${encodeURIComponent(params.id)}/refund`,
    body: params.refund,
    signal: params.signal,
  });
}
