import type { ClaimBasis, DeliveryRow, WebhookDeliveries } from "../store/webhook-deliveries.ts";
import { type Resolver, resolveTarget, type Target, type UrlPolicy } from "./address-guard.ts";
import type { EndpointDirectory } from "./endpoints.ts";
import { type PostResult, type PostTimeouts, postPinned } from "./post.ts";
import { afterAttempt } from "./schedule.ts";
import { SIGNATURE_HEADER, signatureHeader } from "./signing.ts";

export interface AttemptDeps {
  ledger: WebhookDeliveries;
  endpoints: EndpointDirectory;
  policy: UrlPolicy;
  timeouts: PostTimeouts;
  retryBaseMs: number;
  /** How far a claim's lease reaches past the attempt's own bound (WEBHOOK_LEASE_MARGIN_MS). */
  leaseMarginMs: number;
  resolve?: Resolver | undefined;
  now?: () => number;
  log: (level: "info" | "warn", msg: string, fields: object) => void;
}

/** How long a claim holds: past the attempt's own bound, so only a claimer that died loses it. */
export const leaseMs = (deps: Pick<AttemptDeps, "timeouts" | "leaseMarginMs">): number =>
  deps.timeouts.totalMs + deps.leaseMarginMs;

/** What became of one try: the delivery's state after it, and when it is due again if pending. */
export type AttemptOutcome =
  | { kind: "not-claimed" }
  | { kind: "done"; state: DeliveryRow["state"]; nextRetryAt: number | null };

/**
 * One attempt of a pending delivery, as `basis` read it: claim it in the ledger (another process
 * may have it; a first attempt was claimed by the row's insert), read the merchant's endpoint (a rotated secret or a new URL applies to retries),
 * check the URL and its addresses, POST the payload signed now, log the attempt, and record the
 * outcome under the claim.
 */
export async function attemptDelivery(
  delivery: Pick<DeliveryRow, "idempotencyKey" | "merchantId" | "payload">,
  basis: ClaimBasis,
  deps: AttemptDeps,
  opts: { claimed?: boolean; sent?: () => void } = {},
): Promise<AttemptOutcome> {
  const now = deps.now ?? Date.now;
  // `claimed`: the ledger row was written with this lease (a first attempt), nothing to take.
  const lease: ClaimBasis = opts.claimed ? basis : { ...basis, nextRetryAt: now() + leaseMs(deps) };
  if (!opts.claimed && !(await deps.ledger.claim(basis, lease.nextRetryAt))) return { kind: "not-claimed" };

  const endpoint = await deps.endpoints.endpointFor(delivery.merchantId);
  if (!endpoint) {
    // Nothing to deliver to: the delivery ends here, as the log says (a redelivery can send it later).
    const error = "the merchant has no webhook endpoint";
    opts.sent?.();
    await deps.ledger.settle(lease, {
      state: "skipped",
      attempts: basis.attempts,
      nextRetryAt: null,
      lastStatus: null,
      lastError: error,
    });
    deps.log("info", "webhook skipped", { key: delivery.idempotencyKey, error });
    return { kind: "done", state: "skipped", nextRetryAt: null };
  }

  const attempt = basis.attempts + 1;
  const startedAt = now();
  const t0 = performance.now();
  let target: Target | null = null;
  let result: PostResult;
  try {
    // The look-up is part of connecting: it spends the connect bound and the total bound, and what
    // is left of both is the POST's, so a slow name server cannot stretch an attempt past either.
    const { connectMs, totalMs } = deps.timeouts;
    const lookup = AbortSignal.timeout(Math.min(connectMs, totalMs));
    target = await resolveTarget(endpoint.url, deps.policy, deps.resolve, lookup);
    const spent = performance.now() - t0;
    const left = (ms: number) => Math.max(1, Math.round(ms - spent));
    result = await postPinned(
      target,
      delivery.payload,
      {
        [SIGNATURE_HEADER]: signatureHeader(endpoint.secret, delivery.payload, now()),
        "Idempotency-Key": delivery.idempotencyKey,
        "Content-Type": "application/json",
      },
      { connectMs: left(connectMs), totalMs: left(totalMs) },
    );
  } catch (err) {
    // A refused URL or address: no connection was made.
    result = { status: null, error: err instanceof Error ? err.message : String(err) };
  }
  const durationMs = Math.round(performance.now() - t0);
  // The request is over: what is left is recording it, which need not hold a place among the
  // attempts made at once (those bound the connections to merchants).
  opts.sent?.();
  const next = afterAttempt(attempt, result.status, now(), deps.retryBaseMs);
  const nextRetryAt = next.state === "pending" ? next.nextRetryAt : null;
  await deps.ledger.logAttempt({
    idempotencyKey: delivery.idempotencyKey,
    attempt,
    startedAt,
    url: endpoint.url,
    address: target?.address ?? null,
    statusCode: result.status,
    durationMs,
    error: result.error,
  });
  const recorded = await deps.ledger.settle(lease, {
    state: next.state,
    attempts: attempt,
    nextRetryAt,
    lastStatus: result.status,
    lastError: result.error,
  });
  deps.log(next.state === "delivered" ? "info" : "warn", `webhook attempt ${attempt}: ${next.state}`, {
    key: delivery.idempotencyKey,
    status: result.status,
    error: result.error,
    durationMs,
    ...(recorded ? {} : { lost: "the lease ran out; another process owns the delivery now" }),
  });
  return { kind: "done", state: next.state, nextRetryAt };
}
