import { isRetryable } from "./errors.ts";

/**
 * The one retry rule of the service: exponential backoff with jitter, retrying only what the error
 * model calls retryable, stopped by an AbortSignal. The indexer, the transactor and the actor host
 * all retry through it, so "how long until we try again" has one answer.
 */
export interface RetryOptions {
  /** Tries in all, the first included. `Infinity` tries until success, a terminal error or the signal. */
  attempts: number;
  /** The wait after the first failure; it doubles after each further one... */
  baseMs: number;
  /** ...up to this. */
  maxMs: number;
  /** Aborting stops the wait at once and rejects with the signal's reason; no attempt starts after. */
  signal?: AbortSignal | undefined;
  /** Which failures are worth another try (default: errors that say they are retryable). */
  isRetryable?: ((err: unknown) => boolean) | undefined;
  /**
   * The wait before the next try, given the failure and the backoff: default the backoff. For a
   * server that says how long to wait (the client library honours a 429's Retry-After).
   */
  delayMs?: ((err: unknown, backoffMs: number) => number) | undefined;
  /** Called before each wait, e.g. to log; `attempt` is the try that just failed (1 for the first). */
  onRetry?: ((err: unknown, info: { attempt: number; delayMs: number }) => void) | undefined;
  /** In [0, 1); tests pass a fixed one. */
  random?: (() => number) | undefined;
}

export interface RetryContext {
  /** This try's number, 1 for the first (counted from the last reset). */
  attempt: number;
  /**
   * The work made progress: the next failure waits `baseMs` again, and the attempts are counted
   * afresh. For long-running loops (an indexer following a chain) where a failure after an hour of
   * work is a new incident, not the next step of an old one.
   */
  reset(): void;
}

/**
 * Runs `fn` until it resolves. A failure that is not retryable, the last attempt's failure, or any
 * failure after the signal aborted is thrown as it is (never wrapped), so callers can still tell
 * errors apart by class.
 */
export async function retry<T>(fn: (context: RetryContext) => Promise<T>, options: RetryOptions): Promise<T> {
  const retryable = options.isRetryable ?? isRetryable;
  const random = options.random ?? Math.random;
  let failures = 0;
  const context: RetryContext = {
    attempt: 1,
    reset: () => {
      failures = 0;
      context.attempt = 1;
    },
  };
  for (;;) {
    options.signal?.throwIfAborted();
    try {
      return await fn(context);
    } catch (err) {
      failures++;
      if (options.signal?.aborted || failures >= options.attempts || !retryable(err)) throw err;
      const step = backoff(failures, options, random());
      const delayMs = options.delayMs ? options.delayMs(err, step) : step;
      options.onRetry?.(err, { attempt: context.attempt, delayMs });
      await sleep(delayMs, options.signal);
      context.attempt = failures + 1;
    }
  }
}

/**
 * The wait after the `failures`-th failure in a row: "equal jitter" (half of the exponential step
 * fixed, half random), so retrying processes spread out yet always wait at least half the step.
 */
export function backoff(
  failures: number,
  options: Pick<RetryOptions, "baseMs" | "maxMs">,
  random: number,
): number {
  const step = Math.min(options.maxMs, options.baseMs * 2 ** (failures - 1));
  return Math.round(step / 2 + (random * step) / 2);
}

/** A wait that an abort ends early with the signal's reason (global timers, so fake timers drive it). */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
