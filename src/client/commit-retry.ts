import { retry } from "../support/retry.ts";
import { type ApiClient, retryRule } from "./api-client.ts";
import { ApiError, ClientError } from "./errors.ts";
import type { CommitResponse } from "./types.ts";

/**
 * One commit (`POST /sessions/:id/commit`, an EVM Intent or a Solana sweep), retried while it fails
 * retryably (429, 5xx, network, timeout) until `until` (Unix ms): one try per round, so the client's
 * own retries do not nest inside. The burner is funded and an identical commit is answered as the
 * first, so retrying never settles twice. Anything else ends it as `commit_failed`.
 */
export async function commitUntil(
  client: ApiClient,
  params: {
    id: string;
    body: unknown;
    until: number;
    headers?: Record<string, string> | undefined;
    signal?: AbortSignal | undefined;
  },
): Promise<CommitResponse> {
  const rule = retryRule(client.retry);
  try {
    return await retry(
      () =>
        client.request<CommitResponse>({
          method: "POST",
          path: `/sessions/${encodeURIComponent(params.id)}/commit`,
          body: params.body,
          headers: params.headers,
          signal: params.signal,
          attempts: 1,
        }),
      {
        ...rule,
        attempts: Number.POSITIVE_INFINITY,
        signal: params.signal,
        isRetryable: (err) => rule.isRetryable(err) && Date.now() < params.until,
      },
    );
  } catch (err) {
    if (params.signal?.aborted) throw params.signal.reason;
    const retryable = err instanceof ApiError && err.retryable;
    const why = err instanceof ApiError ? err.shortMessage : String(err);
    throw new ClientError("commit_failed", `the commit of session ${params.id} failed: ${why}`, {
      cause: err,
      retryable,
    });
  }
}
