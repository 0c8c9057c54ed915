import { retry } from "../support/retry.ts";
import { type CheckoutCredentials, checkCheckout } from "./checkout.ts";
import { ApiError, ClientError } from "./errors.ts";

/**
 * The payer's HTTP client for the service: one place for the base URL, the per-request timeout and
 * the interface's retry rules (retry 429 after backing off, 5xx, network and timeout failures; never
 * another 4xx). Actions (src/client/actions/) take it as their first argument, as viem's take a
 * client. Runs wherever `fetch` does: Node 20, browsers, workers.
 */

export interface RetryPolicy {
  /** Tries in all, the first included. Default 4. */
  attempts: number;
  /** The wait after the first failure, doubled after each further one (with jitter). Default 250 ms. */
  baseMs: number;
  /** The longest backoff. Default 4000 ms. */
  maxMs: number;
  /**
   * A `Retry-After` longer than this is not waited for: the error is thrown at once, for the caller
   * to decide (a payer's UI should not hang for minutes). Default 60000 ms.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { attempts: 4, baseMs: 250, maxMs: 4000, maxRetryAfterMs: 60_000 };
/** The interface's client default (interface.md, Limits). */
export const DEFAULT_TIMEOUT_MS = 30_000;

export interface ApiClientConfig {
  /** Where the gateway is, e.g. `http://127.0.0.1:8080` (a path prefix is kept). */
  baseUrl: string;
  /** How long one try may take, until the whole JSON body is read (for a stream: until its headers). */
  timeout?: number | undefined;
  retry?: Partial<RetryPolicy> | undefined;
  /** Defaults to the global `fetch`. */
  fetch?: typeof fetch | undefined;
  /**
   * A checkout session's `pk_` and `cs_`: register, commit and quote then send them as headers, the
   * event stream as query parameters. Leave out for an anonymous session.
   */
  checkout?: CheckoutCredentials | undefined;
}

export interface ApiRequest {
  method: "GET" | "POST" | "PUT" | "DELETE";
  /** From the base URL, starting with `/`; path parameters already encoded. */
  path: string;
  /** Sent as JSON. */
  body?: unknown;
  headers?: Record<string, string> | undefined;
  /** Aborting rejects with the signal's reason and stops retrying. */
  signal?: AbortSignal | undefined;
  /**
   * Tries for this request, instead of the policy's: 1 for an action that retries by a rule of its
   * own (commit retries until a deadline), so two retry loops never nest.
   */
  attempts?: number | undefined;
  /**
   * `false` for a request the service must not receive twice (a POST that creates something and
   * carries no Idempotency-Key): only a 429 is retried, which the rate limiter answers before any
   * route runs. After a timeout, a network failure or a 5xx the work may have been done, so that
   * error is thrown at once, for the caller to look before it tries again. Default `true`.
   */
  idempotent?: boolean | undefined;
}

export interface ApiClient {
  readonly baseUrl: string;
  readonly timeout: number;
  readonly retry: RetryPolicy;
  /** The checkout credentials the guarded actions send; null or absent for an anonymous session. */
  readonly checkout?: CheckoutCredentials | null | undefined;
  /** A JSON request, retried by the rules; resolves with the parsed 2xx body (undefined for a 204). */
  request<T>(request: ApiRequest): Promise<T>;
  /**
   * A streaming GET (`text/event-stream`), one try: whoever follows the stream reconnects with
   * `retryRule` (waitForStatus does). The timeout stops at the headers; the body then lives until
   * the caller's signal aborts.
   */
  stream(request: Omit<ApiRequest, "method" | "body">): Promise<Response>;
}

/**
 * @example
 * import { createApiClient } from "deposit-settlement/client";
 * const client = createApiClient({ baseUrl: "http://127.0.0.1:8080" });
 * const session = await client.request({ method: "GET", path: "/sessions/<id>" });
 */
export function createApiClient(config: ApiClientConfig): ApiClient {
  const baseUrl = config.baseUrl.replace(/\/+$/, "");
  const timeout = config.timeout ?? DEFAULT_TIMEOUT_MS;
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...config.retry };
  const fetchFn = config.fetch ?? globalThis.fetch;
  checkConfig(baseUrl, timeout, policy, fetchFn);
  const checkout = config.checkout ? checkCheckout(config.checkout) : null;

  const rule = retryRule(policy);
  const refusedUnseen = (err: unknown) => rule.isRetryable(err) && (err as ApiError).status === 429;
  const withRetries = <T>(req: ApiRequest, once: () => Promise<T>) =>
    retry(once, {
      attempts: req.attempts ?? policy.attempts,
      signal: req.signal,
      ...rule,
      ...(req.idempotent === false ? { isRetryable: refusedUnseen } : {}),
    });

  /** One try: the answer, or an ApiError (or the caller's abort reason). `read` runs under the timer. */
  async function attempt<T>(req: ApiRequest, read: (res: Response, url: string) => Promise<T>): Promise<T> {
    const url = `${baseUrl}${req.path}`;
    const timer = new AbortController();
    const timeoutReason = new Error(`no answer within ${timeout} ms`);
    const clock = setTimeout(() => timer.abort(timeoutReason), timeout);
    const signal = req.signal ? AbortSignal.any([req.signal, timer.signal]) : timer.signal;
    const at = { method: req.method, url };
    // A failure before a full answer: the caller's abort passes through untouched (it is theirs).
    const failed = (err: unknown): never => {
      if (req.signal?.aborted) throw req.signal.reason;
      if (timer.signal.aborted)
        throw new ApiError(`no answer within ${timeout} ms`, {
          ...at,
          kind: "timeout",
          status: 0,
          cause: err,
        });
      throw new ApiError("the service could not be reached", {
        ...at,
        kind: "network",
        status: 0,
        cause: err,
      });
    };
    try {
      const headers: Record<string, string> = { accept: "application/json", ...req.headers };
      if (req.body !== undefined) headers["content-type"] = "application/json";
      const res = await fetchFn(url, {
        method: req.method,
        headers,
        signal,
        ...(req.body === undefined ? {} : { body: JSON.stringify(req.body) }),
      }).catch(failed);
      if (!res.ok) throw await httpError(res, at).catch(failed);
      return await read(res, url).catch((err) =>
        err instanceof ApiError ? Promise.reject(err) : failed(err),
      );
    } finally {
      clearTimeout(clock);
    }
  }

  return {
    baseUrl,
    timeout,
    retry: policy,
    checkout,
    request: <T>(req: ApiRequest) =>
      withRetries(req, () =>
        attempt(req, async (res, url) => {
          // 204 No Content (a merchant's key revoke) has no body to parse: it answers undefined.
          if (res.status === 204) return undefined as T;
          const text = await res.text();
          try {
            return JSON.parse(text) as T;
          } catch (cause) {
            throw new ApiError(`the ${res.status} answer is not JSON`, {
              kind: "parse",
              status: res.status,
              method: req.method,
              url,
              cause,
            });
          }
        }),
      ),
    // One try: whoever follows a stream reconnects by itself (waitForStatus), with retryRule.
    stream: (req) =>
      attempt(
        { ...req, method: "GET", headers: { ...req.headers, accept: "text/event-stream" } },
        async (res, url) => {
          if (res.headers.get("content-type")?.startsWith("text/event-stream") && res.body) return res;
          await res.body?.cancel();
          throw new ApiError(`the ${res.status} answer is not an event stream`, {
            kind: "parse",
            status: res.status,
            method: "GET",
            url,
          });
        },
      ),
  };
}

/**
 * The interface's retry rule under a policy, for every retry the client makes: which failures are
 * worth another try (a 429 whose Retry-After exceeds the policy's limit is thrown for the caller to
 * decide), and how long to wait (the server's Retry-After is a floor under the backoff).
 */
export function retryRule(policy: RetryPolicy) {
  return {
    baseMs: policy.baseMs,
    maxMs: policy.maxMs,
    isRetryable: (err: unknown) =>
      err instanceof ApiError && err.retryable && (err.retryAfterMs ?? 0) <= policy.maxRetryAfterMs,
    delayMs: (err: unknown, backoffMs: number) =>
      Math.max(backoffMs, err instanceof ApiError ? (err.retryAfterMs ?? 0) : 0),
  };
}

/** A configuration that cannot work fails at once (`config_error`), not at the first request. */
function checkConfig(baseUrl: string, timeout: number, policy: RetryPolicy, fetchFn: unknown) {
  const fail = (what: string) => {
    throw new ClientError("config_error", `createApiClient: ${what}`);
  };
  if (!/^https?:\/\/[^/]/.test(baseUrl) || !URL.canParse(baseUrl))
    fail(`baseUrl ${baseUrl} is not an http(s) URL`);
  if (!(timeout > 0) || !Number.isFinite(timeout)) fail(`timeout ${timeout} is not a positive number of ms`);
  if (!(policy.attempts >= 1)) fail(`retry.attempts ${policy.attempts} is not at least 1`);
  for (const key of ["baseMs", "maxMs", "maxRetryAfterMs"] as const)
    if (!(policy[key] >= 0)) fail(`retry.${key} ${policy[key]} is not a non-negative number of ms`);
  if (typeof fetchFn !== "function") fail("no fetch: pass one as `fetch`");
}

/** A non-2xx answer as an ApiError, with the service's `{ "error": "…" }` message when it sent one. */
async function httpError(res: Response, at: { method: string; url: string }): Promise<ApiError> {
  const text = await res.text();
  let serverMessage: string | null = null;
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === "object" && body !== null && typeof (body as { error?: unknown }).error === "string")
      serverMessage = (body as { error: string }).error;
  } catch {
    // Not JSON (a proxy's HTML page): the status still says what happened.
  }
  return new ApiError(serverMessage ?? `HTTP ${res.status}`, {
    ...at,
    kind: "http",
    status: res.status,
    serverMessage,
    retryAfterMs: retryAfterMs(res.headers.get("retry-after")),
  });
}

/** `Retry-After` is either delay-seconds or an HTTP date (RFC 9110 §10.2.3); anything else is ignored. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (value === null) return null;
  if (/^\s*\d+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
