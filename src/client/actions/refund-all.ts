import type { Address } from "viem";
import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { RefundAllBody, RefundAllResponse } from "../types.ts";

export interface RefundAllParameters {
  id: string;
  /** The chain the balance sits on. */
  chainId: number;
  /** An ERC-20 address, or `native` for raw ETH. */
  token: Address | "native";
  signal?: AbortSignal | undefined;
}

/** `tx_hash`, `refund_address` (the standing refund's pinned `to`), `token`, and `amount: "full"`. */
export type RefundAllReturnType = RefundAllResponse;
/** 409 for a session that is not `expired` or `failed`, or has no standing refund for the chain. */
export type RefundAllErrorType = ApiError;

/**
 * Runs the stored standing refund for one asset (`POST /sessions/:id/refund-all`): the relayer
 * moves the burner's full balance of `token` to the pinned recipient. No signature is needed; only
 * an `expired` or `failed` session qualifies. Concurrent calls end in one transaction.
 *
 * @example
 * import { refundAll } from "deposit-settlement/client";
 * const { tx_hash, refund_address } = await refundAll(client, { id, chainId: 31337, token: "native" });
 */
export async function refundAll(
  client: ApiClient,
  params: RefundAllParameters,
): Promise<RefundAllReturnType> {
  const body: RefundAllBody = { token: params.token, chain_id: params.chainId };
  return client.request<RefundAllResponse>({
    method: "POST",
    path: `/sessions/${encodeURIComponent(params.id)}/refund-all`,
    body,
    signal: params.signal,
  });
}
