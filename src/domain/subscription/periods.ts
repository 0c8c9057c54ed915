import { MAX_CHARGE_ATTEMPTS, type Mandate, type Subscription } from "./types.ts";

/** Unix ms at which period `index` starts. */
export const periodStartMs = (m: Pick<Mandate, "start" | "period">, index: number): number =>
  (m.start + index * m.period) * 1000;

/** The period current at `now` (unix ms): the contract charges a period only while it is current. -1 before start. */
export function currentPeriod(m: Pick<Mandate, "start" | "period">, now: number): number {
  const elapsed = Math.floor(now / 1000) - m.start;
  return elapsed < 0 ? -1 : Math.floor(elapsed / m.period);
}

/**
 * The wait after a failed attempt: an eighth of the period, so the three attempts fit in its first
 * half (the contract refuses a period once it is over), at least 1 s and at most an hour.
 */
export const retryDelayMs = (m: Pick<Mandate, "period">): number =>
  Math.min(3_600_000, Math.max(1_000, Math.floor((m.period * 1000) / 8)));

/**
 * When the timer should next fire (unix ms), or null: never for a canceled subscription or while an
 * attempt is with the executor (its result comes back as a command). A period charged or out of
 * attempts waits for the next period's start; otherwise the current period's start or its retry time.
 */
export function chargeDueAt(s: Subscription | null): number | null {
  if (!s || s.status === "canceled" || s.inFlight) return null;
  const finished = s.lastChargedPeriod >= s.periodIndex || s.attempts >= MAX_CHARGE_ATTEMPTS;
  if (finished) return periodStartMs(s.mandate, s.periodIndex + 1);
  return Math.max(periodStartMs(s.mandate, s.periodIndex), s.retryAt);
}
