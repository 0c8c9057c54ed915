import type { DecisionBuilder } from "./decision.ts";
import { isFinal } from "./finality.ts";
import {
  automaticRefusal,
  budgetRefusal,
  dustRefusal,
  type SessionPolicy,
  unmovedAmount,
} from "./relayer-work.ts";
import { type ChainAddress, type Session, sameId } from "./types.ts";

/**
 * The automatic bounce of a Solana session (docs/SOLANA.md, "The bounce"; the interface's "per-chain
 * poller"): once the session ended expired or failed, the whole USDC balance of its burner goes back
 * to the refund address the burner signed in its bounce setup, by the relayer as the delegate that
 * setup approved. The session becomes `bounced` when the chain confirms it (src/domain/evolve.ts).
 *
 * SOL is never bounced: lamports cannot be delegated, only the burner's key moves them (the payer's
 * client returns them). Nothing moves on the strength of a deposit that is not final.
 */

/** The native mint: a SOL deposit's token (docs/SOLANA.md). The service cannot move lamports. */
export const NATIVE_MINT = "So11111111111111111111111111111111111111112";

/**
 * Bounces a session asks of the relayer at most. Each costs the relayer one signature's fee, and a
 * stranger can add late deposits (each above the dust floor, src/domain/acceptance.ts) to ask for
 * more: the payer's own key still moves what arrives after the last.
 */
export const MAX_BOUNCES = 3;

/** The command id of the setup's relay: one per session, since a session takes one setup. */
export const bounceSetupCommandId = (sessionId: string): string => `${sessionId}:bounce-setup`;

/**
 * Whether the session holds accepted USDC on its chain worth bouncing: what the setup approves is
 * there, and more of it than the bounce would cost the relayer (the one dust rule). A deposit at the
 * accepted minimum is the payer's to refund, not the relayer's to set up and bounce.
 */
export const holdsBounceable = (s: Session, policy: SessionPolicy): boolean =>
  s.deposits.some(
    (t) =>
      t.chainId === s.originChainId &&
      t.token !== NATIVE_MINT &&
      dustRefusal(policy, {
        chainId: t.chainId,
        token: t.token,
        amount: unmovedAmount(s, [], t),
        action: "bounce",
      }) === null,
  );

/**
 * Whether the session's bounce setup has been handed to the executor (or refused by the relayer's
 * budget): it holds one and accepted USDC worth bouncing, the two conditions `relayBounceSetup`
 * sends it on. Until then the setup the session holds is only kept, and the same burner may replace
 * it with a newer one (a payer's page keeps a fresh one there while it waits, docs/LINKS.md); after,
 * it is final: the relayer relays one setup per session.
 */
export const setupRelayAsked = (s: Session, policy: SessionPolicy): boolean =>
  s.bounceSetup !== null && holdsBounceable(s, policy);

/**
 * Asks the executor to relay the burner's bounce setup, once: when the setup and an accepted USDC
 * deposit are both recorded, whichever came second (`before` is the session without this decision's
 * events, `after` with them). Nothing is relayer-paid before value exists: a registration whose burner
 * is never paid costs the relayer nothing, and the deposit has opened the account the setup approves.
 * Sent before any bounce of the same decision: the executor works a session's commands in order.
 */
export function relayBounceSetup(
  before: Session,
  after: Session,
  b: DecisionBuilder,
  policy: SessionPolicy,
): void {
  if (after.bounceSetup === null || after.burner === null || after.originChainId === null) return;
  if (!holdsBounceable(after, policy) || setupRelayAsked(before, policy)) return;
  if (budgetRefusal(after, policy, [{ chainId: after.originChainId, action: "bounce_setup" }]) !== null)
    return;
  b.send({
    type: "Executor",
    data: {
      commandId: bounceSetupCommandId(after.id),
      sessionId: after.id,
      chainId: after.originChainId,
      issuedAt: b.issuedAt,
      work: { type: "SolanaBounceSetup", burner: after.burner, transaction: after.bounceSetup },
    },
  });
}

/**
 * Asks the executor to bounce every bounceable asset of the session, once per asset while one is in
 * flight: called when the session ends expired or failed, when money reaches it afterwards, and when
 * such money's slot is finalized. `only` limits it to one asset (a late deposit).
 */
export function solanaBounces(
  state: Session,
  b: DecisionBuilder,
  policy: SessionPolicy,
  only: string | null = null,
): void {
  if (state.originChainId === null || state.bounceTo === null || state.burner === null) return;
  if (state.status !== "expired" && state.status !== "failed" && state.status !== "bounced") return;
  const chainId = state.originChainId;
  const tokens = new Set<string>();
  for (const t of state.deposits) {
    if (t.chainId !== chainId || t.token === NATIVE_MINT) continue;
    if (only !== null && !sameId(t.token, only)) continue;
    tokens.add(t.token);
  }
  for (const token of tokens) requestBounce(state, b, policy, chainId, token, state.burner, state.bounceTo);
}

function requestBounce(
  state: Session,
  b: DecisionBuilder,
  policy: SessionPolicy,
  chainId: number,
  token: ChainAddress,
  burner: ChainAddress,
  to: ChainAddress,
): void {
  const deposits = state.deposits.filter((t) => t.chainId === chainId && sameId(t.token, token));
  // A deposit that can still be dropped is not bounced yet: its DepositFinalized asks again.
  if (!deposits.every((t) => isFinal(state, t))) return;
  const bounces = state.refunds.filter((r) => r.kind === "bounce");
  const same = bounces.filter((r) => r.chainId === chainId && sameId(r.token, token));
  if (same.some((r) => r.status === "requested" || r.status === "submitted")) return;
  // Bounced already, and nothing recorded since: the balance went with it.
  const last = same.findLast((r) => r.status === "confirmed");
  if (last !== undefined && deposits.length <= (last.depositsCovered ?? 0)) return;
  if (bounces.length >= MAX_BOUNCES) return;
  // It moves more than it costs, within the session's relayer budget (src/domain/relayer-work.ts).
  if (automaticRefusal(state, policy, { chainId, token, action: "bounce", moved: same }) !== null) return;
  const id = `${state.id}:bounce:${chainId}:${token}:${same.length}`;
  b.append({
    type: "RefundRequested",
    data: { id, kind: "bounce", chainId, token, to, amount: null, depositsCovered: deposits.length },
  });
  b.send({
    type: "Executor",
    data: {
      commandId: id,
      sessionId: state.id,
      chainId,
      issuedAt: b.issuedAt,
      work: { type: "SolanaBounce", burner, mint: token, to },
    },
  });
}
