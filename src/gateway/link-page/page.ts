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
 * A Solana address for the refund (or a Solana wallet) pays in USDC on Solana instead (./solana-payment.ts).
 */
import { type Address, isAddress, zeroAddress } from "viem";
import { makeBurner } from "../../client/actions/make-burner.ts";
import { payCheckout } from "../../client/actions/pay-checkout.ts";
import { signStandingRefund } from "../../client/actions/sign-standing-refund.ts";
import { createApiClient } from "../../client/api-client.ts";
import { type Burner, newBurner } from "../../client/burner.ts";
import { watchEvmWallets } from "./eip6963.ts";
import {
  connectWallet,
  type Eip1193Provider,
  injectedWallet,
  sendWithWallet,
  walletReader,
} from "./evm-wallet.ts";
import { askWallet, explain, keepPayment, origin, settle } from "./follow.ts";
import {
  body,
  byId,
  choosePayment,
  evmDeposit,
  hideStart,
  link,
  listWallet,
  show,
  showDeposit,
} from "./page-view.ts";
import {
  type EvmSavedPayment,
  type LinkChain,
  loadPayment,
  type PayOption,
  savedSession,
  settlesBySweep,
} from "./saved-payment.ts";
import { followSolana, startSolana } from "./solana-payment.ts";
import { solanaWallet } from "./solana-transfer.ts";
import { connectSolanaWallet, type SolanaWallet, watchSolanaWallets } from "./solana-wallet.ts";

/** The answer of POST /links/:slug/sessions (src/gateway/routes/links.ts). */
interface LinkSession {
  id: string;
  client_secret: string;
  publishable_key: string;
  amount: string;
  expires_at: number;
  chains: LinkChain[];
}

const saved = loadPayment(link.slug);
if (saved && settlesBySweep(saved)) {
  hideStart();
  // Not asking a wallet again: a resumed page shows the address and Solana Pay request to pay by.
  run(() => followSolana(saved, null));
} else if (saved) {
  hideStart();
  run(() => resume(saved));
} else if (link.payable) {
  byId("pay").addEventListener("click", () => run(() => startByAddress()));
  // A merchant paid on Solana alone: no EVM wallet is offered.
  if (link.evm) offerEvmWallets();
  const solana = link.solana;
  if (solana)
    watchSolanaWallets(solana.chain_id, (found) => {
      byId("solana-wallet-start").hidden = false;
      byId("solana-wallet-pay").addEventListener("click", () => run(() => startWithSolanaWallet(found)));
    });
}
// Otherwise the merchant cannot take payments now: the page says so and asks nothing (html.ts).

/** An EVM wallet the payer pays through: its provider, and its EIP-6963 id when it announced one. */
interface PickedWallet {
  provider: Eip1193Provider;
  rdns?: string;
}

/**
 * The payer's EVM wallets: every wallet announced by EIP-6963, each its own "Pay with <name>" button
 * (the payer picks one); with none announced, `window.ethereum` behind "Pay with wallet".
 */
function offerEvmWallets() {
  let announced = false;
  watchEvmWallets((found) => {
    announced = true;
    byId("wallet-start").hidden = false;
    byId("wallet-pay").hidden = true;
    listWallet(found, () => run(() => start({ provider: found.provider, rdns: found.rdns })));
  });
  const injected = injectedWallet();
  if (injected && !announced) {
    byId("wallet-start").hidden = false;
    byId("wallet-pay").addEventListener("click", () => run(() => start({ provider: injected })));
  }
}

/** The wallet a saved payment was paid through: the announced one it picked, else `window.ethereum`. */
function walletOf(rdns: string | undefined): Eip1193Provider | null {
  const found: Eip1193Provider[] = [];
  if (rdns !== undefined)
    watchEvmWallets((w) => {
      if (w.rdns === rdns) found.push(w.provider);
    });
  return found[0] ?? injectedWallet();
}

function run(flow: () => Promise<void>) {
  flow().catch((err: unknown) => {
    show(explain(err), "error");
    console.error(err);
  });
}

/** Nothing more to press once a payment starts: one session per page. */
function disableStart() {
  for (const id of ["pay", "wallet-pay", "solana-wallet-pay", "refund"]) byId(id).disabled = true;
  for (const button of byId("wallet-list").querySelectorAll("button")) button.disabled = true;
}

/**
 * The payer's refund address, or null after saying what is wrong with it: an EVM address, or a
 * Solana wallet when the link is paid on Solana too (then the payment is in USDC on Solana).
 */
function refundAddress(): { evm: Address } | { solana: string } | null {
  const given = byId("refund").value.trim();
  const onSolana = link.solana ? solanaWallet(given) : null;
  if (onSolana) return { solana: onSolana };
  if (!link.evm) {
    show("Enter the address of your own Solana wallet: it is where a refund goes.", "error");
    return null;
  }
  // A mixed-case address carries an EIP-55 checksum, and a typo breaks it: strict checks it.
  if (!isAddress(given, { strict: true })) {
    const solana = link.solana ? " or a Solana wallet's address" : "";
    show(
      `Enter the address of your own wallet (0x…, 40 hex digits${solana}): it is where a refund goes.`,
      "error",
    );
    return null;
  }
  if (given.toLowerCase() === zeroAddress) {
    show("The zero address cannot receive a refund: enter your wallet's address.", "error");
    return null;
  }
  return { evm: given };
}

/** Pays by address and QR code: on Solana for a Solana refund address, else on an EVM chain. */
async function startByAddress() {
  const refundTo = refundAddress();
  if (!refundTo) return;
  if ("evm" in refundTo) return start(null, refundTo.evm);
  if (!link.solana) return;
  disableStart();
  await startSolana(link.solana, refundTo.solana, null);
}

/** Pays through the payer's Solana wallet, whose account is the refund address. */
async function startWithSolanaWallet(wallet: SolanaWallet) {
  if (!link.solana) return;
  const refundTo = await connectSolanaWallet(wallet);
  disableStart();
  await startSolana(link.solana, refundTo, wallet);
}

/** Pays on an EVM chain by address and QR code (`wallet` null), or through the payer's wallet, whose account is the refund address. */
async function start(wallet: PickedWallet | null, given?: Address) {
  const refundTo = wallet ? await connectWallet(wallet.provider) : given;
  if (!refundTo) return;
  disableStart();
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
  const payment: EvmSavedPayment = {
    v: 1,
    ...savedSession(created),
    chain,
    token,
    burnerKey: burner.key,
    eip7702Auth: burner.eip7702Auth,
    standingRefund,
    ...(wallet ? { wallet: true } : {}),
    ...(wallet?.rdns ? { walletRdns: wallet.rdns } : {}),
  };
  keepPayment(payment);
  await follow(payment, burner);
}

/** The saved payment, after a reload or with the link opened again in this browser. */
async function resume(payment: EvmSavedPayment) {
  body.dataset.session = payment.sessionId;
  body.dataset.resumed = "true";
  show("Resuming your payment…");
  await follow(payment, { ...makeBurner({ key: payment.burnerKey }), eip7702Auth: payment.eip7702Auth });
}

/** From a saved EVM payment to its end: settle it (registering and committing as needed), or see its money returned. */
async function follow(payment: EvmSavedPayment, burner: Burner) {
  const { sessionId: id, chain } = payment;
  const token = payment.token ?? usdcOf(chain, payment.amount);
  const wallet = payment.wallet ? walletOf(payment.walletRdns) : null;
  const refundTo = payment.standingRefund.to;
  await settle({
    payment,
    refundTo,
    returnedBy: "refund_all",
    pay: async (client, onSession) => {
      /** Once the address is shown: the wallet, if the payer paid with one, is asked for the one transfer. */
      const registered = async () => {
        await showDeposit(evmDeposit(burner.address, chain, token), payment.expiresAt, refundTo);
        if (!wallet) return;
        await askWallet(payment, async () => {
          await sendWithWallet(wallet, {
            from: refundTo,
            chainId: chain.chain_id,
            token: token.token,
            to: burner.address,
            amount: BigInt(token.amount),
          });
        });
      };
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
    },
  });
}

/** USDC on `chain`, for a payment saved before the page offered other tokens. */
const usdcOf = (chain: LinkChain, amount: string): PayOption => ({
  token: chain.usdc,
  symbol: "USDC",
  decimals: 6,
  amount,
});
