import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { StandingRefundResponse, StandingRefundWire } from "../types.ts";

export interface AttachStandingRefundParameters {
  id: string;
  /** What `signStandingRefund` returned. */
  standingRefund: StandingRefundWire;
  signal?: AbortSignal | undefined;
}

/** The session's `id` and `status`, and the standing refund as stored. */
export type AttachStandingRefundReturnType = StandingRefundResponse;
/** 400 when a signature does not recover to the burner or the deadline has passed. */
export type AttachStandingRefundErrorType = ApiError;

/**
 * Attaches a standing refund to a session after it was opened (`POST /sessions/:id/standing-refund`);
 * the service checks that every signature recovers to the burner and stores one per source chain.
 * (`createSession` takes one too, as `standingRefund`.)
 *
 * @example
 * import { attachStandingRefund, signStandingRefund } from "deposit-settlement/client";
 * await attachStandingRefund(client, { id, standingRefund: await signStandingRefund({ ... }) });
 */
export async function attachStandingRefund(
  client: ApiClient,
  params: AttachStandingRefundParameters,
): Promise<AttachStandingRefundReturnType> {
  return client.request<AttachStandingRefundReturnType>({
    method: "POST",
    path: `/sessions/${encodeURIComponent(params.id)}/standing-refund`,
    body: params.standingRefund,
    signal: params.signal,
  });
}
