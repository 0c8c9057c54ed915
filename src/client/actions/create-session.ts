import type { Address } from "viem";
import type { ApiClient } from "../api-client.ts";
import type { Burner } from "../burner.ts";
import type { ApiError } from "../errors.ts";
import type { CreateSessionBody, CreateSessionResponse } from "../types.ts";

export interface CreateSessionParameters {
  /** A burner from `newBurner` (src/client/burner.ts): its address and signed EIP-7702 authorization. */
  burner: Pick<Burner, "address" | "eip7702Auth">;
  /** Where the settled funds go: an EVM address on an EVM chain. */
  destination: { address: Address; chainId: number };
  flow?: CreateSessionBody["flow"] | undefined;
  standingRefund?: CreateSessionBody["standing_refund"] | undefined;
  /**
   * Makes every try of this request the same command: the service answers the same session to a
   * retry after a timeout or a 503 (docs/API.md, "Idempotency-Key"). Generated when left out; pass
   * your own to retry across restarts of your app.
   */
  idempotencyKey?: string | undefined;
  signal?: AbortSignal | undefined;
}

export type CreateSessionReturnType = CreateSessionResponse;
export type CreateSessionErrorType = ApiError;

/**
 * Opens an anonymous deposit session (`POST /sessions`) for a burner; the session starts `pending`.
 * Retried by the client's rules under one Idempotency-Key, so a retry never opens a second session.
 *
 * @example
 * import { createApiClient, createSession, newBurner } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const burner = await newBurner({ chainId: 31337, delegate: "0x…" });
 * const { id, expires_at } = await createSession(client, {
 *   burner,
 *   destination: { address: "0x000000000000000000000000000000000000dEaD", chainId: 31338 },
 * });
 */
export async function createSession(
  client: ApiClient,
  params: CreateSessionParameters,
): Promise<CreateSessionReturnType> {
  const body: CreateSessionBody = {
    burner_address: params.burner.address,
    eip7702_auth: params.burner.eip7702Auth,
    destination_address: params.destination.address,
    destination_chain: params.destination.chainId,
    ...(params.flow === undefined ? {} : { flow: params.flow }),
    ...(params.standingRefund === undefined ? {} : { standing_refund: params.standingRefund }),
  };
  return client.request<CreateSessionResponse>({
    method: "POST",
    path: "/sessions",
    body,
    headers: { "idempotency-key": params.idempotencyKey ?? crypto.randomUUID() },
    signal: params.signal,
  });
}
