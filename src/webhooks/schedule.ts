/**
 * The interface's delivery rules (interface.md, "Delivery rules"), as a pure function of the attempt
 * just made: any 2xx is success; otherwise the next attempt is due at now + 2^attempts seconds
 * (attempts counted before this one, so 1, 2, 4, 8 s after the first to fourth failure), and after
 * the fifth failed attempt the delivery is `failed`. `baseMs` is the one second of the rule, made a
 * setting (WEBHOOK_RETRY_BASE_MS) so tests can run the schedule in milliseconds.
 */
export const MAX_ATTEMPTS = 5;

export type AfterAttempt =
  | { state: "delivered" }
  | { state: "pending"; nextRetryAt: number }
  | { state: "failed" };

export const isSuccess = (status: number | null): boolean => status !== null && status >= 200 && status < 300;

/** Where a delivery stands after its attempt number `attempt` (1-based) answered `status` (null: no answer). */
export function afterAttempt(
  attempt: number,
  status: number | null,
  nowMs: number,
  baseMs: number,
): AfterAttempt {
  if (isSuccess(status)) return { state: "delivered" };
  if (attempt >= MAX_ATTEMPTS) return { state: "failed" };
  return { state: "pending", nextRetryAt: nowMs + retryDelayMs(attempt, baseMs) };
}

/** The wait after failed attempt number `attempt` (1-based): base * 2^(attempt - 1). */
export const retryDelayMs = (attempt: number, baseMs: number): number => baseMs * 2 ** (attempt - 1);
