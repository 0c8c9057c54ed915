import type { ApiClient } from "../api-client.ts";
import type { Burner } from "../burner.ts";
import { type CheckoutCredentials, checkoutHeaders } from "../checkout.ts";
import { commitUntil } from "../commit-retry.ts";
import type { ClientError } from "../errors.ts";
import type { CommitBody, CommitResponse } from "../types.ts";
import type { SignIntentReturnType } from "./sign-intent.ts";

/** How long a commit is retried by default: the burner is funded, so giving up early strands nothing but time. */
export const DEFAULT_COMMIT_RETRY_MS = 120_000;

export interface CommitParameters {
  id: string;
  /** The burner's address and the authorization the session was opened with (re-validated at commit). */
  burner: Pick<Burner, "address" | "eip7702Auth">;
  /** What `signIntent` returned: the Intent, its signature and the source chain. */
  signed: SignIntentReturnType;
  /**
   * How long retryable failures (429, 5xx, network, timeout) are retried, in ms; never past the
   * Intent's deadline. Default 120000.
   */
  retryFor?: number | undefined;
  /** A checkout session's `pk_` and `cs_` (sent as headers); default the client's `checkout`. */
  checkout?: CheckoutCredentials | undefined;
  signal?: AbortSignal | undefined;
}

export type CommitReturnType = CommitResponse;
/**
 * `commit_failed`, with the last ApiError as `cause`: `retryable` when the failure was one the
 * interface calls retryable and the retry time ran out (commit again: the same signed Intent is
 * answered as the first was); not retryable for a refusal (a 4xx: no deposit yet, another Intent
 * already committed, the session closed, the Intent does not match the session; `cause.status` and
 * `cause.serverMessage` say which).
 */
export type CommitErrorType = ClientError<"commit_failed">;

/**
 * Commits the burner-signed Intent (`POST /sessions/:id/commit`, `intent_sigs` = { source chain
 * id: signature }). The service settles once it is accepted. A retryable failure is retried with
 * the client's backoff until `retryFor` has passed: the burner is funded, and a retried identical
 * commit is accepted as the first one (no second settlement), so retrying is always safe.
 *
 * @example
 * import { commit } from "deposit-settlement/client";
 * const { fee_bps } = await commit(client, { id, burner, signed });
 */
export async function commit(client: ApiClient, params: CommitParameters): Promise<CommitReturnType> {
  const { intent, signature, chainId } = params.signed;
  const body: CommitBody = {
    burner: params.burner.address,
    eip7702_auth: params.burner.eip7702Auth,
    intent,
    intent_sigs: { [String(chainId)]: signature },
  };
  const until = Math.min(Date.now() + (params.retryFor ?? DEFAULT_COMMIT_RETRY_MS), intent.deadline * 1000);
  const headers = checkoutHeaders(params.checkout ?? client.checkout);
  return commitUntil(client, { id: params.id, body, until, headers, signal: params.signal });
}
