import type { ApiError } from "../../errors.ts";
import type { MerchantClient } from "../merchant-client.ts";
import type { PaymentSession } from "../types.ts";

export interface GetPaymentSessionParameters {
  /** The session's id, from createPaymentSession's answer. */
  id: string;
  signal?: AbortSignal | undefined;
}

export type GetPaymentSessionReturnType = PaymentSession;
/**
 * An `http` ApiError: 404 for an unknown id, another merchant's session or an anonymous one; 400
 * for an id that is not a UUID.
 */
export type GetPaymentSessionErrorType = ApiError;

/**
 * One of the merchant's checkout sessions (`GET /v1/payment_sessions/:id`), as it stands, for
 * reconciliation: its status, amount, app fee and the full Session object. Never the client secret.
 *
 * @example
 * const { status, session } = await getPaymentSession(client, { id: order.sessionId });
 * if (status === "swept") markPaid(order, session.settled_amount);
 */
export async function getPaymentSession(
  client: MerchantClient,
  params: GetPaymentSessionParameters,
): Promise<GetPaymentSessionReturnType> {
  return client.request<PaymentSession>({
    method: "GET",
    path: `/v1/payment_sessions/${encodeURIComponent(params.id)}`,
    signal: params.signal,
  });
}
