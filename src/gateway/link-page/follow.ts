/**
 * From a started payment to its end, on any chain: the page settles it (the family's `pay`:
 * register, show the address, sign and commit once the deposit is seen) or, when the session ended
 * unsettled, waits to see its money returned. A reloaded page comes back here with the saved payment.
 */
import { getSession } from "../../client/actions/get-session.ts";
import { waitForStatus } from "../../client/actions/wait-for-status.ts";
import { type ApiClient, createApiClient } from "../../client/api-client.ts";
import { ApiError, SessionEndedError } from "../../client/errors.ts";
import type { Session } from "../../client/types.ts";
import { assertNever } from "../../domain/evolve.ts";
import type { RefundKind } from "../../domain/types.ts";
import { hideDeposit, link, reach, type Step, show } from "./page-view.ts";
import { clearPayment, type SavedPayment, savePayment } from "./saved-payment.ts";

/** The page's own origin: the only one its CSP lets it reach. */
export const origin = (globalThis as unknown as { location: { origin: string } }).location.origin;
/** How often, and how long, the page looks for the refund's transaction once the session ended. */
const REFUND_POLL_MS = 2_000;
const REFUND_WATCH_MS = 30 * 60_000;

export interface Settling {
  /** The saved payment's session and its checkout credentials. */
  payment: Pick<SavedPayment, "sessionId" | "publishableKey" | "clientSecret">;
  refundTo: string;
  /** The refund record that returns the money when the session ends unsettled. */
  returnedBy: RefundKind;
  /**
   * Settles the open session with the session's client (its pk_ and cs_): registers the burner,
   * shows the address, signs and commits once paid.
   */
  pay(client: ApiClient, onSession: (s: Session) => void): Promise<void>;
}

export async function settle(p: Settling): Promise<void> {
  const { sessionId: id, publishableKey, clientSecret } = p.payment;
  const client = createApiClient({ baseUrl: origin, checkout: { publishableKey, clientSecret } });
  const step = (...steps: Step[]) => reach(steps, p.refundTo);
  const onSession = (s: Session) => progress(s, step);
  step("refund_signed");
  let now = await getSession(client, { id });
  if (!isCommitted(now) && !hasEnded(now)) {
    try {
      await p.pay(client, onSession);
      return paid(step);
    } catch (err) {
      // A commit the page before a reload had sent, or a session that ended: read where it is.
      now = await getSession(client, { id });
      if (!isCommitted(now) && !hasEnded(now)) throw err;
    }
  }
  hideDeposit();
  if (hasEnded(now) && now.status !== "swept") return returned(p, client, now, step);
  await waitForStatus(client, { id, status: "swept", onSession });
  paid(step);
}

/** Saves the payment before its address is shown: a reload from here on resumes it. */
export function keepPayment(payment: SavedPayment) {
  if (!savePayment(link.slug, payment))
    console.warn("this browser keeps no storage: a reload cannot resume the payment");
}

/**
 * Once the address is shown, the payer's wallet (if they pay with one) is asked for the one
 * transfer; a sent transfer is marked in the saved payment, so a reload never asks twice. true when
 * the wallet sent it now.
 */
export async function askWallet(payment: SavedPayment, send: () => Promise<void>): Promise<boolean> {
  if (!payment.wallet || payment.sent) return false;
  show("Confirm the payment in your wallet…");
  try {
    await send();
  } catch (err) {
    // Refused or failed in the wallet: the address and QR code stay, to pay another way.
    show(`Your wallet did not send it (${explain(err)}). You can still pay to the address below.`, "error");
    return false;
  }
  savePayment(link.slug, { ...payment, sent: true });
  show("Sent. Waiting for it to arrive…");
  return true;
}

function paid(step: (...steps: Step[]) => void) {
  hideDeposit();
  step("waiting", "detected", "signing", "processing", "paid");
  clearPayment(link.slug);
  show("Paid. Thank you!", "paid");
}

/** The steps and status line for a state the event stream sent. */
function progress(s: Session, step: (...steps: Step[]) => void) {
  switch (s.status) {
    case "pending":
      return step("waiting");
    case "detected":
      show("Payment received. Settling…");
      return step("waiting", "detected", "signing");
    case "sweeping":
    case "swept":
      hideDeposit();
      show("Payment received. Settling…");
      return step("waiting", "detected", "signing", "processing");
    case "expired":
    case "failed":
    case "bounced":
      return;
    default:
      return assertNever(s.status);
  }
}

/**
 * The session ended without settling: with no money in the burner there is nothing to return; else
 * the service returns it (the EVM standing refund, the Solana bounce), and the page waits to see it mined.
 */
async function returned(p: Settling, client: ApiClient, ended: Session, step: (...steps: Step[]) => void) {
  hideDeposit();
  if (ended.deposits.length === 0) {
    clearPayment(link.slug);
    show("This payment expired before any money arrived. Reload the page to start again.", "error");
    return;
  }
  step("waiting", "detected", "returning");
  show("The payment could not be settled: your money is on its way back.");
  const until = Date.now() + REFUND_WATCH_MS;
  for (let s = ended; Date.now() < until; s = await getSession(client, { id: s.id })) {
    const back = s.refunds.filter((r) => r.kind === p.returnedBy);
    if (back.some((r) => r.status === "confirmed")) {
      step("refunded");
      clearPayment(link.slug);
      show(`Refunded to ${p.refundTo}.`, "refunded");
      return;
    }
    if (back.some((r) => r.status === "failed"))
      throw new Error("The refund failed: keep this page and contact the merchant.");
    await new Promise((resolve) => setTimeout(resolve, REFUND_POLL_MS));
  }
  show("Your refund is still on its way: open this link again later to see it.");
}

/** An Intent (or a Solana sweep) was accepted: only the sweep is left, which needs nothing more from the page. */
const isCommitted = (s: Session) =>
  s.status === "sweeping" || s.status === "swept" || (s.status === "detected" && s.fee_bps !== null);
const hasEnded = (s: Session) =>
  s.status === "swept" || s.status === "expired" || s.status === "failed" || s.status === "bounced";

export function explain(err: unknown): string {
  if (err instanceof SessionEndedError)
    return err.session.status === "expired"
      ? "This payment expired before any money arrived. Reload the page to start again."
      : "The payment could not be settled. Your money goes back to your refund address.";
  if (err instanceof ApiError && err.serverMessage) return err.serverMessage;
  return err instanceof Error ? err.message : String(err);
}
