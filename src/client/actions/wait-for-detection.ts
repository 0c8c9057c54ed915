import type { ApiClient } from "../api-client.ts";
import { ApiError } from "../errors.ts";
import type { Session } from "../types.ts";
import {
  type WaitForStatusErrorType,
  type WaitForStatusParameters,
  waitForStatus,
} from "./wait-for-status.ts";

export type WaitForDetectionParameters = Omit<WaitForStatusParameters, "status">;

/** A Session whose deposit is known: the fields the Intent is built from are set. */
export type DetectedSession = Session & {
  source_chain_id: number;
  detected_token: `0x${string}`;
  detected_amount: string;
  detected_tx: `0x${string}`;
};
export type WaitForDetectionReturnType = DetectedSession;
/**
 * As waitForStatus's: a `timeout` ApiError when no deposit came in time, `SessionEndedError`
 * (`session_expired`) when the session expired first; a `parse` ApiError for a detected session
 * without its deposit fields.
 */
export type WaitForDetectionErrorType = WaitForStatusErrorType;

/**
 * Waits over the session's event stream (`GET /sessions/:id/events`, event `status`) until a
 * deposit is detected, and resolves with the Session then: its `source_chain_id`,
 * `detected_token` and `detected_amount` are what the Intent signs (`signIntent`).
 *
 * @example
 * import { createApiClient, waitForDetection } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const detected = await waitForDetection(client, { id: "<session id>", timeout: 300_000 });
 * console.log(detected.detected_token, detected.detected_amount);
 */
export async function waitForDetection(
  client: ApiClient,
  params: WaitForDetectionParameters,
): Promise<WaitForDetectionReturnType> {
  const session = await waitForStatus(client, { ...params, status: "detected" });
  if (isDetected(session)) return session;
  throw new ApiError(`session ${session.id} is ${session.status} but names no deposit`, {
    kind: "parse",
    status: 200,
    method: "GET",
    url: `${client.baseUrl}/sessions/${encodeURIComponent(params.id)}/events`,
  });
}

export function isDetected(session: Session): session is DetectedSession {
  return (
    session.source_chain_id !== null &&
    session.detected_token !== null &&
    session.detected_amount !== null &&
    session.detected_tx !== null
  );
}
