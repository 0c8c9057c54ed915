import type { RequestSolanaRefund } from "./commands.ts";
import { type Decision, DecisionBuilder, nothingToDo, refuse } from "./decision.ts";
import { newDeposits } from "./refunds.ts";
import { reject } from "./rejections.ts";
import { refundRefusal, type SessionPolicy } from "./relayer-work.ts";
import { type Session, sameId } from "./types.ts";

/**
 * The payer's Solana refund (POST /sessions/:id/solana-refund, docs/SOLANA.md "The payer's refund"):
 * the burner signed a transaction that moves its whole balance of one asset to an address of its
 * choosing; the relayer only pays its fee. The session core decides whether the relayer pays: the
 * session ended (expired, failed or bounced: where the automatic bounce would apply), nothing of the
 * asset is in flight (a bounce, another refund: both would move the same balance and one would fail
 * at the relayer's cost), and the relayer has not paid for MAX_SOLANA_REFUNDS of them already.
 */

/** Refunds of a session the relayer pays for (each one fee, two signatures): the burner's key moves the rest. */
export const MAX_SOLANA_REFUNDS = 3;

/** The refund record's id, and the executor command's: one per burner-signed transaction. */
export const solanaRefundId = (sessionId: string, signature: string): string =>
  `${sessionId}:solana-refund:${signature}`;

const ENDED = new Set<Session["status"]>(["expired", "failed", "bounced"]);

export function decideSolanaRefund(
  command: RequestSolanaRefund,
  state: Session,
  policy: SessionPolicy,
): Decision {
  const d = command.data;
  if (state.originChainId === null) return refuse(reject("not_solana_session"));
  if (state.burner === null || !sameId(state.burner, d.burner)) return refuse(reject("burner_mismatch"));
  const id = solanaRefundId(state.id, d.signature);
  // The same signed refund again (a retried request): it is already recorded, or done.
  if (state.refunds.some((r) => r.id === id)) return nothingToDo();
  if (!ENDED.has(state.status))
    return refuse(
      reject("wrong_status", "a Solana refund needs a session that ended: expired, failed or bounced"),
    );
  if (d.amount <= 0n) return refuse(reject("nothing_to_refund"));
  const chainId = state.originChainId;
  const inFlight = state.refunds.some(
    (r) =>
      r.chainId === chainId &&
      sameId(r.token, d.token) &&
      (r.status === "requested" || r.status === "submitted"),
  );
  if (inFlight) return refuse(reject("refund_in_flight"));
  if (state.refunds.filter((r) => r.kind === "solana_refund").length >= MAX_SOLANA_REFUNDS)
    return refuse(reject("refund_limit_reached"));
  // The rulebook every relayer-paid refund follows, whatever the family (src/domain/relayer-work.ts):
  // a recorded deposit of the asset, not to the burner, above the dust floor, within the budget, and
  // something new since the last refund or bounce of it moved the balance.
  // The dust floor is the one rule's (dustRefusal): no live floor to add on Solana.
  const onChain = { balance: d.amount, dustFloor: 0n };
  const paid = state.refunds.filter((r) => r.chainId === chainId && sameId(r.token, d.token));
  const refused =
    refundRefusal(state, policy, { chainId, token: d.token, to: d.to, amount: d.amount, onChain }) ??
    (newDeposits(state, paid, chainId, d.token) ? null : reject("no_new_deposit"));
  if (refused !== null) return refuse(refused);
  const depositsCovered = state.deposits.filter(
    (t) => t.chainId === chainId && sameId(t.token, d.token),
  ).length;
  return DecisionBuilder.for(state, command.metadata)
    .append({
      type: "RefundRequested",
      data: {
        id,
        kind: "solana_refund",
        chainId,
        token: d.token,
        to: d.to,
        amount: d.amount,
        depositsCovered,
      },
    })
    .send({
      type: "Executor",
      data: {
        commandId: id,
        sessionId: state.id,
        chainId,
        issuedAt: command.metadata.issuedAt,
        work: { type: "RelaySolanaRefund", burner: d.burner, transaction: d.transaction },
      },
    })
    .decision();
}
