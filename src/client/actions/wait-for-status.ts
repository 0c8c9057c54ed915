import { EventSourceParserStream } from "eventsource-parser/stream";
import { BaseError } from "../../support/errors.ts";
import { retry } from "../../support/retry.ts";
import { type ApiClient, retryRule } from "../api-client.ts";
import { type CheckoutCredentials, withCheckoutQuery } from "../checkout.ts";
import { ApiError, SessionEndedError } from "../errors.ts";
import type { Session, SessionStatus } from "../types.ts";

export interface WaitForStatusParameters {
  id: string;
  /**
   * The status to wait for. A later status on the way to settlement (pending, detected, sweeping,
   * swept) counts too: the stream sends the current state on connect, not the history, so a status
   * passed while no one listened would otherwise never be seen.
   */
  status: SessionStatus;
  /** How long to wait in all. Default 600000 ms (ten minutes). */
  timeout?: number | undefined;
  /**
   * The service sends a keep-alive every 15 s (SSE_KEEPALIVE_MS); a connection silent this long is
   * taken for dead (a proxy or NAT that dropped it without a word) and opened again. Default 45000 ms.
   */
  idleTimeout?: number | undefined;
  signal?: AbortSignal | undefined;
  /** Called with every state the stream sends, e.g. to show progress. */
  onSession?: ((session: Session) => void) | undefined;
  /**
   * A checkout session's `pk_` and `cs_`, sent as the query parameters `pk` and `client_secret` (as a
   * browser's EventSource would have to); default the client's `checkout`.
   */
  checkout?: CheckoutCredentials | undefined;
}

export type WaitForStatusReturnType = Session;
/**
 * `ApiError`: the stream could not be opened and retrying cannot help (404, a body that is not an
 * event stream), an event that is not a Session, or kind `timeout` when `timeout` passed first.
 * `SessionEndedError`: the session ended elsewhere (`expired` has code `session_expired`).
 */
export type WaitForStatusErrorType = ApiError | SessionEndedError;

const DEFAULT_TIMEOUT_MS = 600_000;
const DEFAULT_IDLE_MS = 45_000;
const PROGRESS: readonly SessionStatus[] = ["pending", "detected", "sweeping", "swept"];
const ENDED: ReadonlySet<SessionStatus> = new Set(["swept", "failed", "bounced", "expired"]);

/** `current` is `target`, or follows it on the way to settlement. */
export function hasReached(current: SessionStatus, target: SessionStatus): boolean {
  if (current === target) return true;
  const at = PROGRESS.indexOf(current);
  const wanted = PROGRESS.indexOf(target);
  return at >= 0 && wanted >= 0 && at > wanted;
}

/**
 * Follows a session's event stream (`GET /sessions/:id/events`) until it reaches `status`, and
 * resolves with the Session at that point. A connection that breaks, ends or goes silent is opened
 * again (with backoff, until `timeout`): each connection starts with the current state, so nothing
 * is missed. Rejects with the signal's reason when `signal` aborts.
 *
 * @example
 * import { createApiClient, waitForStatus } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const session = await waitForStatus(client, { id: "<session id>", status: "detected" });
 * console.log(session.detected_token, session.detected_amount);
 */
export async function waitForStatus(
  client: ApiClient,
  params: WaitForStatusParameters,
): Promise<WaitForStatusReturnType> {
  const timeout = params.timeout ?? DEFAULT_TIMEOUT_MS;
  const idleMs = params.idleTimeout ?? DEFAULT_IDLE_MS;
  const path = withCheckoutQuery(
    `/sessions/${encodeURIComponent(params.id)}/events`,
    params.checkout ?? client.checkout,
  );
  // Errors name the stream without its query: the client secret stays out of messages and logs.
  const at = { method: "GET", url: `${client.baseUrl}/sessions/${encodeURIComponent(params.id)}/events` };
  const deadline = new AbortController();
  const clock = setTimeout(() => deadline.abort(new Error("wait timed out")), timeout);
  const signal = params.signal ? AbortSignal.any([params.signal, deadline.signal]) : deadline.signal;
  let last: SessionStatus | null = null;

  /** One connection: resolves with the awaited Session, or throws why the connection ended. */
  async function follow(): Promise<Session> {
    const connection = new AbortController();
    const connSignal = AbortSignal.any([signal, connection.signal]);
    let idle: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(idle);
      idle = setTimeout(() => connection.abort(new Error("idle")), idleMs);
    };
    try {
      const res = await client.stream({ path, signal: connSignal });
      heard();
      const events = (res.body as ReadableStream<Uint8Array>)
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream({ onComment: heard }))
        .getReader();
      for (;;) {
        const { done, value } = await events.read();
        if (done) throw new ApiError("the event stream ended", { ...at, kind: "network", status: 0 });
        heard();
        if (value.event !== "status") continue;
        const session = parseSession(value.data, at);
        last = session.status;
        params.onSession?.(session);
        if (hasReached(session.status, params.status)) return session;
        if (ENDED.has(session.status)) throw new SessionEndedError(session, params.status);
      }
    } catch (err) {
      if (err instanceof BaseError || signal.aborted) throw err;
      const silent = connection.signal.aborted;
      throw new ApiError(silent ? `the event stream was silent for ${idleMs} ms` : "the event stream broke", {
        ...at,
        kind: silent ? "timeout" : "network",
        status: 0,
        cause: err,
      });
    } finally {
      clearTimeout(idle);
      connection.abort(); // closes the connection, whatever ended the wait
    }
  }

  try {
    // Reconnect for as long as the wait lasts: the deadline, not a count, bounds it.
    return await retry(follow, { attempts: Number.POSITIVE_INFINITY, signal, ...retryRule(client.retry) });
  } catch (err) {
    if (params.signal?.aborted) throw params.signal.reason;
    if (deadline.signal.aborted)
      throw new ApiError(`session ${params.id} did not become ${params.status} within ${timeout} ms`, {
        ...at,
        kind: "timeout",
        status: 0,
        cause: last === null ? err : `last status ${last}`,
      });
    throw err;
  } finally {
    clearTimeout(clock);
  }
}

function parseSession(data: string, at: { method: string; url: string }): Session {
  try {
    const session = JSON.parse(data) as Session;
    if (typeof session?.status === "string") return session;
  } catch {
    // reported below
  }
  throw new ApiError("a status event does not carry a Session", { ...at, kind: "parse", status: 200 });
}
