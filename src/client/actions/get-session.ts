import type { ApiClient } from "../api-client.ts";
import type { ApiError } from "../errors.ts";
import type { Session } from "../types.ts";

export interface GetSessionParameters {
  /** The session's UUID, as `createSession` answered it. */
  id: string;
  signal?: AbortSignal | undefined;
}

export type GetSessionReturnType = Session;
/** An unknown id is an `http` ApiError with status 404 (not retried). */
export type GetSessionErrorType = ApiError;

/**
 * Reads a session (`GET /sessions/:id`): the full Session object, its newest state.
 *
 * @example
 * import { createApiClient, getSession } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const session = await getSession(client, { id: "<session id>" });
 * console.log(session.status, session.detected_amount);
 */
export async function getSession(
  client: ApiClient,
  params: GetSessionParameters,
): Promise<GetSessionReturnType> {
  return client.request<Session>({
    method: "GET",
    path: `/sessions/${encodeURIComponent(params.id)}`,
    signal: params.signal,
  });
}
