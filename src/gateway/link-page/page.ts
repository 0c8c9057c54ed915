/**
 * The hosted payment page's script, bundled for the browser (./bundle.ts). Everything happens in
 * the payer's browser with the client library, no wallet extension needed. The page never shows an
 * address to pay before the money has a way back: it asks for the payer's refund address (checked,
 * checksum included), makes a burner key, has it sign a standing refund to that address, saves the
 * payment in localStorage (./saved-payment.ts) and registers the burner with the standing refund;
 * only then does it show the deposit address. It follows the session over SSE and signs and commits
 * the Intent itself once the deposit is seen (detect-then-sign with the key it holds). A reload, or
 * the link opened again in this browser, resumes the saved payment. A page closed for good leaves
 * the session uncommitted: it expires, and the service returns the money with the standing refund.
 */
import { type Address, isAddress, zeroAddress } from "viem";
import { getSession } from "../../client/actions/get-session.ts";
import { makeBurner } from "../../client/actions/make-burner.ts";
import { payCheckout } from "../../client/actions/pay-checkout.ts";
import { signStandingRefund } from "../../client/actions/sign-standing-refund.ts";
import { waitForStatus } from "../../client/actions/wait-for-status.ts";
import { type ApiClient, createApiClient } from "../../client/api-client.ts";
import { type Burner, newBurner } from "../../client/burner.ts";
import { ApiError, SessionEndedError } from "../../client/errors.ts";
import type { Session } from "../../client/types.ts";
import { assertNever } from "../../domain/evolve.ts";
import {
  connectWallet,
  type Eip1193Provider,
  injectedWallet,
  sendWithWallet,
  walletReader,
} from "./evm-wallet.ts";
import {
  body,
  byId,
  choosePayment,
  hideDeposit,
  hideStart,
  link,
  reach,
  type Step,
  show,
  showDeposit,
} from "./page-view.ts";
import {
  clearPayment,
  type LinkChain,
  loadPayment,
  type PayOption,
  type SavedPayment,
  savePayment,
} from "./saved-payment.ts";

/** The answer of POST /links/:slug/sessions (src/gateway/routes/links.ts). */
interface LinkSession {
  id: string;
  client_secret: string;
  publishable_key: string;
  amount: string;
  expires_at: number;
  chains: LinkChain[];
}

const origin = (globalThis as unknown as { location: { origin: string } }).location.origin;
/** How often, and how long, the page looks for the refund's transaction once the session ended. */
const REFUND_POLL_MS = 2_000;
const REFUND_WATCH_MS = 30 * 60_000;

const saved = loadPayment(link.slug);
if (saved) {
  hideStart();
  run(() => resume(saved));
} else if (link.payable) {
  byId("pay").addEventListener("click", () => run(() => start(null)));
  const wallet = injectedWallet();
  if (wallet) {
    byId("wallet-start").hidden = false;
    byId("wallet-pay").addEventListener("click", () => run(() => start(wallet)));
  }
}
// Otherwise the merchant cannot take payments now: the page says so and asks nothing (html.ts).

function run(flow: () => Promise<void>) {
  flow().catch((err: unknown) => {
    show(explain(err), "error");
    console.error(err);
  });
}

/** The payer's refund address, or null after saying what is wrong with it. */
function refundAddress(): Address | null {
  const given = byId("refund").value.trim();
  // A mixed-case address carries an EIP-55 checksum, and a typo breaks it: strict checks it.
  if (!isAddress(given, { strict: true })) {
    show("Enter the address of your own wallet (0x…, 40 hex digits): it is where a refund goes.", "error");
    return null;
  }
  if (given.toLowerCase() === zeroAddress) {
    show("The zero address cannot receive a refund: enter your wallet's address.", "error");
    return null;
  }
  return given;
}

/** Pays by address and QR code (`wallet` null), or through the payer's wallet, whose account is the refund address. */
async function start(wallet: Eip1193Provider | null) {
  const refundTo = wallet ? await connectWallet(wallet) : refundAddress();
  if (!refundTo) return;
  byId("pay").disabled = true;
  byId("wallet-pay").disabled = true;
  byId("refund").disabled = true;
  show("Creating your payment…");
  const created = await createApiClient({ baseUrl: origin }).request<LinkSession>({
    method: "POST",
    path: `/links/${encodeURIComponent(link.slug)}/sessions`,
    // A retry would make a second, unused session: harmless, but one try is enough here.
    attempts: 1,
  });
  body.dataset.session = created.id;
  const { chain, token } = await choosePayment(created.chains, { swaps: wallet !== null });
  show(`Preparing your payment in ${token.symbol} on ${chain.name}…`);
  // The burner's authorization is signed for the one chain the payer pays on.
  const burner = await newBurner({ chainId: chain.chain_id, delegate: chain.delegate });
  const standingRefund = await signStandingRefund({
    signer: burner.account,
    to: refundTo,
    chainIds: [chain.chain_id],
  });
  const payment: SavedPayment = {
    v: 1,
    sessionId: created.id,
    clientSecret: created.client_secret,
    publishableKey: created.publishable_key,
    amount: created.amount,
    expiresAt: created.expires_at,
    chain,
    token,
    burnerKey: burner.key,
    eip7702Auth: burner.eip7702Auth,
    standingRefund,
    ...(wallet ? { wallet: true } : {}),
  };
  // Saved before the address is shown: a reload from here on resumes this payment.
  if (!savePayment(link.slug, payment))
    console.warn("this browser keeps no storage: a reload cannot resume the payment");
  await follow(payment, burner);
}

/** The saved payment, after a reload or with the link opened again in this browser. */
async function resume(payment: SavedPayment) {
  body.dataset.session = payment.sessionId;
  body.dataset.resumed = "true";
  show("Resuming your payment…");
  await follow(payment, { ...makeBurner({ key: payment.burnerKey }), eip7702Auth: payment.eip7702Auth });
}

/** From a saved payment to its end: settle it (registering and committing as needed), or see its money returned. */
async function follow(payment: SavedPayment, burner: Burner) {
  const { sessionId: id, chain } = payment;
  const token = payment.token ?? usdcOf(chain, payment.amount);
  const wallet = payment.wallet ? injectedWallet() : null;
  /** Once the address is shown: the wallet, if the payer paid with one, is asked for the one transfer. */
  const registered = async () => {
    await showDeposit(burner.address, chain, token, payment.expiresAt, refundTo);
    if (!wallet || payment.sent) return;
    show("Confirm the payment in your wallet…");
    try {
      await sendWithWallet(wallet, {
        from: refundTo,
        chainId: chain.chain_id,
        token: token.token,
        to: burner.address,
        amount: BigInt(token.amount),
      });
    } catch (err) {
      // Refused or failed in the wallet: the address and QR code stay, to pay another way.
      show(`Your wallet did not send it (${explain(err)}). You can still pay to the address below.`, "error");
      return;
    }
    // Sent once: a reload must not ask the wallet again.
    savePayment(link.slug, { ...payment, sent: true });
    show("Sent. Waiting for it to arrive…");
  };
  const refundTo = payment.standingRefund.to;
  const client = createApiClient({
    baseUrl: origin,
    checkout: { publishableKey: payment.publishableKey, clientSecret: payment.clientSecret },
  });
  const step = (...steps: Step[]) => reach(steps, refundTo);
  const onSession = (s: Session) => progress(s, step);
  step("refund_signed");
  let now = await getSession(client, { id });
  if (!isCommitted(now) && !hasEnded(now)) {
    try {
      await payCheckout(client, {
        id,
        burner,
        standingRefund: payment.standingRefund,
        usdc: { [chain.chain_id]: chain.usdc },
        detectionTimeout: Math.max(payment.expiresAt * 1000 - Date.now(), 60_000),
        // The payer's own RPC, through their wallet: a swapped deposit's floor is checked against it.
        publicClient: wallet ? walletReader(wallet) : undefined,
        onRegistered: registered,
        onSession,
      });
      return paid(step);
    } catch (err) {
      // A commit the page before a reload had sent, or a session that ended: read where it is.
      now = await getSession(client, { id });
      if (!isCommitted(now) && !hasEnded(now)) throw err;
    }
  }
  hideDeposit();
  if (hasEnded(now) && now.status !== "swept") return returned(client, now, refundTo, step);
  await waitForStatus(client, { id, status: "swept", onSession });
  paid(step);
}

/** USDC on `chain`, for a payment saved before the page offered other tokens. */
const usdcOf = (chain: LinkChain, amount: string): PayOption => ({
  token: chain.usdc,
  symbol: "USDC",
  decimals: 6,
  amount,
});

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
 * the service bounces it with the standing refund, and the page waits to see that refund mined.
 */
async function returned(
  client: ApiClient,
  ended: Session,
  refundTo: Address,
  step: (...steps: Step[]) => void,
) {
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
    const bounced = s.refunds.filter((r) => r.kind === "refund_all");
    if (bounced.some((r) => r.status === "confirmed")) {
      step("refunded");
      clearPayment(link.slug);
      show(`Refunded to ${refundTo}.`, "refunded");
      return;
    }
    if (bounced.some((r) => r.status === "failed"))
      throw new Error("The refund failed: keep this page and contact the merchant.");
    await new Promise((resolve) => setTimeout(resolve, REFUND_POLL_MS));
  }
  show("Your refund is still on its way: open this link again later to see it.");
}

/** An Intent was accepted: only the sweep is left, which needs nothing more from the page. */
const isCommitted = (s: Session) =>
  s.status === "sweeping" || s.status === "swept" || (s.status === "detected" && s.fee_bps !== null);
const hasEnded = (s: Session) =>
  s.status === "swept" || s.status === "expired" || s.status === "failed" || s.status === "bounced";

function explain(err: unknown): string {
  if (err instanceof SessionEndedError)
    return err.session.status === "expired"
      ? "This payment expired before any money arrived. Reload the page to start again."
      : "The payment could not be settled. Your money goes back to your refund address.";
  if (err instanceof ApiError && err.serverMessage) return err.serverMessage;
  return err instanceof Error ? err.message : String(err);
}
