import { solanaBounces } from "./bounce.ts";
import type {
  AttachStandingRefund,
  CommandMetadata,
  ExecutionOutcome,
  RequestRefund,
  RequestRefundAll,
} from "./commands.ts";
import { type Decision, DecisionBuilder, nothingToDo, refuse } from "./decision.ts";
import type { SessionEvent } from "./events.ts";
import { evolve } from "./evolve.ts";
import { reject } from "./rejections.ts";
import {
  automaticRefusal,
  budgetRefusal,
  isDeposited,
  refundRefusal,
  type SessionPolicy,
} from "./relayer-work.ts";
import { type Address, type RefundRecord, type Session, type StandingRefund, sameId } from "./types.ts";
import { sessionWebhook } from "./webhooks.ts";

/** A burner-signed Refund is one executor command per chain and salt: the delegate spends each salt once. */
export const refundCommandId = (sessionId: string, chainId: number, salt: string): string =>
  `${sessionId}:refund:${chainId}:${salt.toLowerCase()}`;

const inFlight = (r: RefundRecord): boolean => r.status === "requested" || r.status === "submitted";

/**
 * POST /sessions/:id/refund, after the gateway checked the burner's signature. Any status but
 * sweeping: the money is the payer's until a sweep takes it, and a refund racing the sweep would
 * make one of them fail on chain for nothing. The relayer pays for it, so it must move value
 * (relayer-work.ts): a recorded deposit, an amount the chain shows, above the dust floor.
 */
export function decideRefund(command: RequestRefund, state: Session, policy: SessionPolicy): Decision {
  const d = command.data;
  if (state.status === "sweeping") {
    return refuse(reject("wrong_status", "a refund cannot run while the session's sweep is in flight"));
  }
  const id = refundCommandId(state.id, d.chainId, d.salt);
  if (state.refunds.some((r) => r.id === id)) return nothingToDo(); // the same signed refund again
  const { chainId, token, to, amount, deadline, salt, signature } = d;
  const refused = refundRefusal(state, policy, { chainId, token, to, amount, onChain: d.onChain });
  if (refused) return refuse(refused);
  return DecisionBuilder.for(state, command.metadata)
    .append({
      type: "RefundRequested",
      data: { id, kind: "refund", chainId, token, to, amount, depositsCovered: null },
    })
    .send({
      type: "Executor",
      data: {
        commandId: id,
        sessionId: state.id,
        chainId,
        issuedAt: command.metadata.issuedAt,
        work: {
          type: "Refund",
          burner: state.burner as Address,
          token,
          to,
          amount,
          deadline,
          salt,
          signature,
          auth: state.auth,
        },
      },
    })
    .decision();
}

/**
 * POST /sessions/:id/refund-all: the stored standing refund for one asset, for sessions that ended
 * expired or failed. Calls while one for the same asset is in flight join it: one transaction. A
 * refund-all the relayer already ran for the asset runs again only for a deposit recorded since.
 */
export function decideRefundAll(command: RequestRefundAll, state: Session, policy: SessionPolicy): Decision {
  const { chainId, token, onChain } = command.data;
  if (state.status !== "expired" && state.status !== "failed") {
    return refuse(reject("wrong_status", "refund-all needs an expired or failed session"));
  }
  const sr = state.standingRefund;
  if (sr === null || signatureFor(sr, chainId) === null) return refuse(reject("no_standing_refund"));
  const same = refundAllsOf(state, chainId, token);
  const b = DecisionBuilder.for(state, command.metadata);
  if (same.some(inFlight)) return b.decision(); // joins it
  // Unsupported deposits are never bounced at the relayer's cost: the burner's signed refund returns them.
  if (depositsOf(state, chainId, token) === 0 && isDeposited(state, { chainId, token })) {
    return refuse(
      reject(
        "asset_not_deposited",
        "refund-all moves accepted deposits only: an unsupported deposit goes back through a burner-signed refund",
      ),
    );
  }
  const refused =
    refundRefusal(state, policy, { chainId, token, to: sr.to, amount: null, onChain }) ??
    (newDeposits(state, same, chainId, token) ? null : reject("no_new_deposit"));
  if (refused) return refuse(refused);
  requestRefundAll(state, b, chainId, token, policy);
  return b.decision();
}

/**
 * POST /sessions/:id/standing-refund: signatures for the same recipient and deadline are merged per
 * chain; another recipient or deadline replaces the standing refund. A session that already ended
 * expired or failed is refunded at once.
 */
export function decideAttachStandingRefund(
  command: AttachStandingRefund,
  state: Session,
  policy: SessionPolicy,
): Decision {
  if (state.status === "swept" || state.status === "bounced") return refuse(reject("session_closed"));
  const given = command.data.standingRefund;
  if (state.burner !== null && sameId(given.to, state.burner)) return refuse(reject("refund_to_burner"));
  const old = state.standingRefund;
  const merged: StandingRefund =
    old !== null && sameId(old.to, given.to) && old.deadline === given.deadline
      ? { ...old, signatures: { ...old.signatures, ...given.signatures } }
      : given;
  if (old !== null && sameStandingRefund(old, merged)) return nothingToDo();
  const b = DecisionBuilder.for(state, command.metadata).append({
    type: "StandingRefundAttached",
    data: { standingRefund: merged },
  });
  if (state.status === "expired" || state.status === "failed")
    standingRefunds({ ...state, standingRefund: merged }, b, null, policy);
  return b.decision();
}

/**
 * The automatic bounce ("the poller" of the interface): every asset the burner received on a chain
 * the standing refund covers goes back to its recipient, once per asset while one is in flight.
 * Called when a session ends expired or failed, and for money that reaches it afterwards. `only`
 * limits it to one asset (a late deposit). Nothing bounces that is dust or would pass the session's
 * relayer budget (the burner's owner can still submit the signed refund and pay for it).
 */
export function standingRefunds(
  state: Session,
  b: DecisionBuilder,
  only: { chainId: number; token: string } | null,
  policy: SessionPolicy,
): void {
  if (state.status !== "expired" && state.status !== "failed") return;
  const seen = new Set<string>();
  for (const t of state.deposits) {
    if (only !== null && (t.chainId !== only.chainId || !sameId(t.token, only.token))) continue;
    const key = `${t.chainId}:${t.token.toLowerCase()}`;
    if (seen.has(key) || signatureFor(state.standingRefund, t.chainId) === null) continue;
    seen.add(key);
    // Started by the service, not asked for: it moves more than it costs, within the budget.
    const moved = refundAllsOf(state, t.chainId, t.token);
    if (
      automaticRefusal(state, policy, { chainId: t.chainId, token: t.token, action: "refund", moved }) !==
      null
    )
      continue;
    requestRefundAll(state, b, t.chainId, t.token as Address, policy);
  }
}

/**
 * Appends a refund_all for one asset unless one is in flight, the recipient is the burner (the
 * delegate refuses it) or the budget is spent, and asks the executor for it.
 */
function requestRefundAll(
  state: Session,
  b: DecisionBuilder,
  chainId: number,
  token: Address,
  policy: SessionPolicy,
): void {
  const sr = state.standingRefund;
  const signature = signatureFor(sr, chainId);
  if (sr === null || signature === null) return;
  if (state.burner !== null && sameId(sr.to, state.burner)) return;
  if (budgetRefusal(state, policy, [{ chainId, action: "refund" }]) !== null) return;
  const same = refundAllsOf(state, chainId, token);
  if (same.some(inFlight)) return;
  const id = `${state.id}:refund-all:${chainId}:${token.toLowerCase()}:${same.length}`;
  b.append({
    type: "RefundRequested",
    data: {
      id,
      kind: "refund_all",
      chainId,
      token,
      to: sr.to,
      amount: null,
      depositsCovered: depositsOf(state, chainId, token),
    },
  });
  b.send({
    type: "Executor",
    data: {
      commandId: id,
      sessionId: state.id,
      chainId,
      issuedAt: b.issuedAt,
      work: {
        type: "RefundAll",
        burner: state.burner as Address,
        token,
        to: sr.to,
        deadline: sr.deadline,
        signature,
        auth: state.auth,
      },
    },
  });
}

/** What the executor reports about one of the session's refunds; each report moves it only forward. */
export function decideRefundResult(
  state: Session,
  refund: RefundRecord,
  outcome: ExecutionOutcome,
  metadata: CommandMetadata,
  policy: SessionPolicy,
): Decision {
  if (refund.status === "confirmed" || refund.status === "failed") return nothingToDo();
  const b = DecisionBuilder.for(state, metadata);
  const update = (status: RefundRecord["status"], txHash: string | null, errorMessage: string | null) =>
    b.append({ type: "RefundUpdated", data: { id: refund.id, status, txHash, errorMessage } });
  switch (outcome.type) {
    case "TransactionSubmitted":
      if (refund.txHash !== null && sameId(refund.txHash, outcome.txHash)) return nothingToDo();
      return update("submitted", outcome.txHash, null).decision();
    case "TransactionConfirmed": {
      update("confirmed", outcome.txHash, null);
      if (refund.kind === "bounce") {
        const after = evolve(state, b.events[0] as SessionEvent) as Session;
        b.send(sessionWebhook(after, "payment.bounced", metadata.issuedAt));
        // Money recorded since the bounce was asked for may have come after its transaction.
        solanaBounces(after, b, policy, refund.token);
        return b.decision();
      }
      b.send(sessionWebhook(state, "payment.refunded", metadata.issuedAt));
      // Money recorded after the bounce was asked for may have been mined after its transaction,
      // so it is still in the burner: bounce the asset again.
      const { chainId, token } = refund;
      if (refund.kind === "refund_all" && depositsOf(state, chainId, token) > (refund.depositsCovered ?? 0)) {
        standingRefunds(evolve(state, b.events[0] as SessionEvent) as Session, b, { chainId, token }, policy);
      }
      return b.decision();
    }
    case "ExecutionFailed":
      // A retried attempt keeps the refund in flight; only the executor giving up ends it.
      if (outcome.retryable) return nothingToDo();
      return update("failed", outcome.txHash, outcome.errorMessage).decision();
    case "SweepConfirmed":
    case "BridgeRelayed":
      return refuse(reject("execution_unknown", `a ${outcome.type} result cannot answer a refund`));
    default:
      return outcome satisfies never;
  }
}

function refundAllsOf(state: Session, chainId: number, token: string): RefundRecord[] {
  return state.refunds.filter(
    (r) => r.kind === "refund_all" && r.chainId === chainId && sameId(r.token, token),
  );
}

/**
 * Whether a deposit of the asset was recorded since the newest refund-all that took it (confirmed):
 * a refund-all that found the burner empty, or one the chain already answered, is not run again
 * for the same deposits. Failed ones moved nothing and do not count.
 */
export function newDeposits(
  state: Session,
  refundAlls: RefundRecord[],
  chainId: number,
  token: string,
): boolean {
  const last = refundAlls.findLast((r) => r.status === "confirmed");
  return last === undefined || depositsOf(state, chainId, token) > (last.depositsCovered ?? 0);
}

/** Deposits of one asset recorded on the session. */
function depositsOf(state: Session, chainId: number, token: string): number {
  return state.deposits.filter((t) => t.chainId === chainId && sameId(t.token, token)).length;
}

function signatureFor(sr: StandingRefund | null, chainId: number) {
  return sr?.signatures[String(chainId)] ?? null;
}

function sameStandingRefund(a: StandingRefund, b: StandingRefund): boolean {
  const keys = Object.keys(b.signatures);
  return (
    sameId(a.to, b.to) &&
    a.deadline === b.deadline &&
    keys.length === Object.keys(a.signatures).length &&
    keys.every(
      (k) => a.signatures[k] !== undefined && sameId(a.signatures[k] as string, b.signatures[k] as string),
    )
  );
}
