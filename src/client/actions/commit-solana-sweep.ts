import type { ApiClient } from "../api-client.ts";
import { type CheckoutCredentials, checkoutHeaders } from "../checkout.ts";
import { commitUntil } from "../commit-retry.ts";
import type { ClientError } from "../errors.ts";
import type { CommitResponse, SolanaCommitBody } from "../types.ts";

/**
 * How long a Solana commit is retried by default: about as long as the sweep's blockhash lives (150
 * blocks, ~60 s); past that the service refuses it and it must be signed again with a new one.
 */
export const DEFAULT_SOLANA_COMMIT_RETRY_MS = 60_000;

export interface CommitSolanaSweepParameters {
  id: string;
  /** What `signSolanaSweep` returned as `transaction`: the burner-signed sweep, base64. */
  transaction: string;
  /** How long retryable failures (429, 5xx, network, timeout) are retried, ms. Default 60000. */
  retryFor?: number | undefined;
  /** A merchant's Solana checkout session: its `pk_` and `cs_` (sent as headers); default the client's `checkout`. */
  checkout?: CheckoutCredentials | undefined;
  signal?: AbortSignal | undefined;
}

export type CommitSolanaSweepReturnType = CommitResponse;
/**
 * `commit_failed`, with the last ApiError as `cause`: `retryable` when the retries ran out on a
 * retryable failure; not retryable for a refusal (400 `sweep_invalid`: not the sweep the session owes,
 * or its blockhash expired; 400 `intent_mismatch`; 409: not detected, another sweep committed, the
 * session closed; `cause.serverMessage` says which).
 */
export type CommitSolanaSweepErrorType = ClientError<"commit_failed">;

/**
 * Commits the burner-signed sweep (`POST /sessions/:id/commit` with `{ transaction }`). The service
 * checks it, co-signs it as fee payer and relays it once the deposit is final. A retryable failure is
 * retried with the client's backoff until `retryFor` has passed: the same transaction sent again is
 * answered as the first, never relayed twice (ed25519 signatures are deterministic).
 *
 * @example
 * import { commitSolanaSweep } from "deposit-settlement/client";
 * const { fee_bps } = await commitSolanaSweep(client, { id, transaction });
 */
export async function commitSolanaSweep(
  client: ApiClient,
  params: CommitSolanaSweepParameters,
): Promise<CommitSolanaSweepReturnType> {
  const body: SolanaCommitBody = { transaction: params.transaction };
  const until = Date.now() + (params.retryFor ?? DEFAULT_SOLANA_COMMIT_RETRY_MS);
  const headers = checkoutHeaders(params.checkout ?? client.checkout);
  return commitUntil(client, { id: params.id, body, until, headers, signal: params.signal });
}
