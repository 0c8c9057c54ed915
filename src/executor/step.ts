import type { StepTry, TxHash } from "../chains/adapter.ts";
import { TransactionStuck, txHashOf } from "../chains/execution-errors.ts";
import { isCassandraUnavailable } from "../store/cassandra.ts";
import { BaseError } from "../support/errors.ts";
import { retry, sleep } from "../support/retry.ts";

export interface StepPolicy {
  /** Tries in all; the last failure is final. */
  maxAttempts: number;
  baseMs: number;
  maxMs: number;
  signal: AbortSignal;
}

/** A step that will not be tried again: the command fails with this message. */
export class StepGaveUp extends BaseError {
  override name = "StepGaveUp";
  readonly code = "step_gave_up";
  readonly retryable = false;
  constructor(
    message: string,
    readonly txHash: TxHash | null,
  ) {
    super(message);
  }
}

/**
 * Errors of unknown origin are retried (unlike the service's default rule): the ledger makes another
 * try of a step safe, and the attempt limit bounds them.
 */
const worthRetrying = (err: unknown): boolean => !(err instanceof BaseError) || err.retryable;

/**
 * Runs one step of a command until it succeeds, fails terminally or runs out of tries. Every failed
 * try that will be tried again is reported first (`onRetry`: an ExecutionFailed with
 * retryable=true); the try after a stuck transaction asks for its replacement with higher fees.
 */
export async function runStep<T>(
  key: string,
  policy: StepPolicy,
  hooks: {
    onSubmitted: StepTry["onSubmitted"];
    onRetry: (err: unknown, txHash: TxHash | null) => Promise<void>;
    /** Tries ran out: whatever of the step is still pending must be stopped before the failure is final. */
    onGiveUp: () => Promise<void>;
  },
  fn: (t: StepTry) => Promise<T>,
): Promise<T> {
  let bump = false;
  try {
    return await retry(
      async ({ attempt }) => {
        try {
          return await storeAnswering(policy, () => fn({ key, bump, onSubmitted: hooks.onSubmitted }));
        } catch (err) {
          if (!policy.signal.aborted && worthRetrying(err) && attempt < policy.maxAttempts) {
            await hooks.onRetry(err, txHashOf(err));
            bump = err instanceof TransactionStuck;
          }
          throw err;
        }
      },
      {
        attempts: policy.maxAttempts,
        baseMs: policy.baseMs,
        maxMs: policy.maxMs,
        signal: policy.signal,
        isRetryable: worthRetrying,
      },
    );
  } catch (err) {
    if (policy.signal.aborted) throw err;
    const exhausted = worthRetrying(err);
    if (exhausted) await hooks.onGiveUp();
    const gaveUp = exhausted ? `gave up after ${policy.maxAttempts} tries: ` : "";
    throw new StepGaveUp(`${gaveUp}${messageOf(err)}`, txHashOf(err));
  }
}

/**
 * Runs a try again, without counting it, while its failure is the service's own store being
 * unreachable (a Cassandra restart takes longer than the attempts' backoff): such a try did nothing
 * the ledger does not know of, and the command is not at fault, so an outage must not fail it (the
 * many-process fault proof, docs/RELIABILITY.md, saw a refund fail that way). Stopped by the signal.
 */
async function storeAnswering<T>(policy: StepPolicy, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isCassandraUnavailable(err) || policy.signal.aborted) throw err;
      await sleep(policy.baseMs, policy.signal);
    }
  }
}

export const messageOf = (err: unknown): string =>
  err instanceof BaseError
    ? err.shortMessage
    : err instanceof Error
      ? (err.message.split("\n")[0] ?? "")
      : String(err);
