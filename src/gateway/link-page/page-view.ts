/**
 * What the hosted payment page shows (page.ts decides when): the status line, the steps as they
 * happen, the deposit address with its QR code, copy button and time left, and the chain picker.
 */
import QRCode from "qrcode";
import { formatUnits } from "viem";
import { assertNever } from "../../domain/evolve.ts";
import type { PageLink } from "./html.ts";
import { eip681Uri } from "./payment-uri.ts";
import type { LinkChain, PayOption } from "./saved-payment.ts";

// The few DOM pieces the page uses, typed here: the project compiles without the DOM library (its
// types clash with Node's streams), and this file runs only in the browser.
export interface PageElement {
  textContent: string | null;
  hidden: boolean;
  disabled: boolean;
  src: string;
  type: string;
  value: string;
  alt: string;
  dataset: Record<string, string | undefined>;
  addEventListener(type: "click", listener: () => void): void;
  append(...nodes: PageElement[]): void;
  querySelector(selector: string): PageElement | null;
  querySelectorAll(selector: string): Iterable<PageElement>;
}
const { document, navigator } = globalThis as unknown as {
  document: {
    getElementById(id: string): PageElement;
    createElement(tag: "button" | "li" | "img"): PageElement;
    createTextNode(text: string): PageElement;
    body: PageElement;
  };
  navigator: { clipboard?: { writeText(text: string): Promise<void> } };
};
export const byId = (id: string) => document.getElementById(id);
export const body = document.body;

/** Hides the refund form; a page for a merchant that cannot take payments has none (html.ts). */
export function hideStart() {
  const start = document.getElementById("start") as PageElement | null;
  if (start) start.hidden = true;
}

export const link = JSON.parse(byId("link-data").textContent ?? "{}") as PageLink;

export type StatusState = "progress" | "paid" | "refunded" | "error";

export function show(text: string, state: StatusState = "progress") {
  const status = byId("status");
  status.textContent = text;
  status.dataset.status = state;
}

/** The steps of a payment, in the order they can happen; `refund_*` replace the last two when it cannot settle. */
export type Step =
  | "refund_signed"
  | "waiting"
  | "detected"
  | "signing"
  | "processing"
  | "paid"
  | "returning"
  | "refunded";

function stepText(step: Step, refundTo: string): string {
  switch (step) {
    case "refund_signed":
      return `Refund address set: ${refundTo}`;
    case "waiting":
      return "Waiting for your payment";
    case "detected":
      return "Payment detected";
    case "signing":
      return "Signing the settlement";
    case "processing":
      return "Processing";
    case "paid":
      return "Paid";
    case "returning":
      return `Not settled in time: returning the money to ${refundTo}`;
    case "refunded":
      return `Refunded to ${refundTo}`;
    default:
      return assertNever(step);
  }
}

/**
 * Shows each of `steps` not shown yet, in order (the event stream sends the state now, so a step
 * passed between two events is filled in); the last one is current, the others done.
 */
export function reach(steps: readonly Step[], refundTo: string) {
  const list = byId("steps");
  for (const step of steps) {
    if (list.querySelector(`li[data-step="${step}"]`)) continue;
    for (const li of list.querySelectorAll("li")) li.dataset.state = "done";
    const li = document.createElement("li");
    li.dataset.step = step;
    li.dataset.state = step === "paid" || step === "refunded" ? "done" : "current";
    li.textContent = stepText(step, refundTo);
    list.append(li);
  }
}

let clock: ReturnType<typeof setInterval> | undefined;

/** A token amount as the payer reads it: "10.0123 DAI". */
export const tokenAmount = (o: PayOption) => `${formatUnits(BigInt(o.amount), o.decimals)} ${o.symbol}`;

/** What the payer is asked to send, and where: an EVM chain's EIP-681 request or a Solana Pay one. */
export interface DepositRequest {
  address: string;
  /** "10 USDC". */
  amount: string;
  /** "source (chain 31337)". */
  chain: string;
  /** The payment request a phone wallet scans (./payment-uri.ts). */
  uri: string;
}

/** A deposit on an EVM chain: the EIP-681 request of the exact amount of the token to the burner. */
export const evmDeposit = (address: string, chain: LinkChain, token: PayOption): DepositRequest => ({
  address,
  amount: tokenAmount(token),
  chain: `${chain.name} (chain ${chain.chain_id})`,
  uri: eip681Uri({ token: token.token, chainId: chain.chain_id, to: address, amount: BigInt(token.amount) }),
});

/** The deposit address, its QR code and copy button, and the time left to pay (until `expiresAt`, Unix s). */
export async function showDeposit(deposit: DepositRequest, expiresAt: number, refundTo: string) {
  const { address, uri } = deposit;
  byId("address").textContent = address;
  byId("pay-amount").textContent = deposit.amount;
  byId("chain").textContent = deposit.chain;
  byId("refund-to").textContent = refundTo;
  // A wallet that scans it proposes the transfer of the exact amount of the token to the burner.
  byId("qr").src = await QRCode.toDataURL(uri, { margin: 1, width: 220 });
  byId("qr").dataset.uri = uri;
  const copy = byId("copy");
  copy.addEventListener("click", () => {
    const done = (text: string) => {
      copy.textContent = text;
    };
    // The clipboard needs a secure context and the page's focus; without it the payer selects the text.
    if (!navigator.clipboard) return done("Select the address to copy it");
    navigator.clipboard.writeText(address).then(
      () => done("Copied"),
      () => done("Select the address to copy it"),
    );
  });
  const tick = () => {
    const left = Math.max(0, Math.floor(expiresAt - Date.now() / 1000));
    byId("time-left").textContent =
      left === 0 ? "time is up" : `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
  };
  tick();
  clearInterval(clock);
  clock = setInterval(tick, 1000);
  hideStart();
  byId("deposit").hidden = false;
}

/** Hides the deposit once the payment is being settled, returned or is over: nothing more to send. */
export function hideDeposit() {
  clearInterval(clock);
  byId("deposit").hidden = true;
}

/**
 * Adds a "Pay with <name>" button, with the wallet's icon, to the list of the payer's EVM wallets
 * (EIP-6963); `pick` runs when it is pressed. The name is shown as text, never as markup.
 */
export function listWallet(wallet: { name: string; icon: string; rdns: string }, pick: () => void) {
  const list = byId("wallet-list");
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.rdns = wallet.rdns;
  if (wallet.icon) {
    const icon = document.createElement("img");
    icon.src = wallet.icon;
    icon.alt = ""; // the button's text names the wallet
    button.append(icon);
  }
  button.append(document.createTextNode(`Pay with ${wallet.name}`));
  button.addEventListener("click", pick);
  list.append(button);
  list.hidden = false;
}

/** One way to pay: a token on a chain, with the amount of it that pays the link. */
export interface PayChoice {
  chain: LinkChain;
  token: PayOption;
}

/**
 * The chain and token to pay with: the only one, or the payer's pick among every token of every
 * chain the session can be paid on, each shown with the amount of it that pays the link.
 */
export async function choosePayment(all: readonly LinkChain[], opts: { swaps: boolean }): Promise<PayChoice> {
  // A swapped deposit's floor is checked against the payer's own quote, read through the wallet's
  // RPC (the page has none of its own): without a wallet, only USDC, which is not swapped.
  const chains = all.map((c) => ({
    ...c,
    tokens: opts.swaps ? c.tokens : c.tokens.filter((t) => t.token.toLowerCase() === c.usdc.toLowerCase()),
  }));
  const choices = chains.flatMap((chain) => chain.tokens.map((token) => ({ chain, token })));
  const [only] = choices;
  if (!only) throw new Error("this link cannot be paid on any chain yet");
  if (choices.length === 1) return only;
  const picker = byId("chains");
  show("How will you pay?");
  picker.hidden = false;
  return new Promise((resolve) => {
    for (const chain of chains) {
      const group = document.createElement("li");
      group.textContent = `${chain.name} (chain ${chain.chain_id})`;
      group.dataset.chain = String(chain.chain_id);
      for (const token of chain.tokens) {
        const choice = document.createElement("button");
        choice.type = "button";
        choice.textContent = `${tokenAmount(token)} on ${chain.name}`;
        choice.dataset.chain = String(chain.chain_id);
        choice.dataset.token = token.symbol;
        choice.addEventListener("click", () => {
          picker.hidden = true;
          resolve({ chain, token });
        });
        group.append(choice);
      }
      picker.append(group);
    }
  });
}
