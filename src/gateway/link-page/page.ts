/**
 * The hosted payment page's script, bundled for the browser (./bundle.ts). Everything happens in
 * the payer's browser with the client library, no wallet extension needed: a fresh burner key is
 * made here and never leaves the page; the burner is registered on a new checkout session of the
 * link; the page shows the deposit address and its QR code, follows the session over SSE, signs and
 * commits the Intent itself once the deposit is seen (detect-then-sign with the key it holds), and
 * says "paid" once the session is swept.
 */
import QRCode from "qrcode";
import { payCheckout } from "../../client/actions/pay-checkout.ts";
import { createApiClient } from "../../client/api-client.ts";
import { newBurner } from "../../client/burner.ts";
import { ApiError, SessionEndedError } from "../../client/errors.ts";
import type { SessionStatus } from "../../client/types.ts";
import type { PageLink } from "./html.ts";

/** The answer of POST /links/:slug/sessions (src/gateway/routes/links.ts). */
interface LinkSession {
  id: string;
  client_secret: string;
  publishable_key: string;
  amount: string;
  expires_at: number;
  chains: Array<{ chain_id: number; name: string; delegate: `0x${string}`; usdc: `0x${string}` }>;
}

// The few DOM pieces the page uses, typed here: the project compiles without the DOM library (its
// types clash with Node's streams), and this file runs only in the browser.
interface PageElement {
  textContent: string | null;
  hidden: boolean;
  disabled: boolean;
  src: string;
  type: string;
  dataset: Record<string, string | undefined>;
  addEventListener(type: "click", listener: () => void): void;
  append(...nodes: PageElement[]): void;
}
const { document, location } = globalThis as unknown as {
  document: {
    getElementById(id: string): PageElement;
    createElement(tag: "button"): PageElement;
    body: PageElement;
  };
  location: { origin: string };
};
const byId = (id: string) => document.getElementById(id);
const link = JSON.parse(byId("link-data").textContent ?? "{}") as PageLink;
const button = byId("pay");

const LABELS: Partial<Record<SessionStatus, string>> = {
  pending: "Waiting for your payment…",
  detected: "Payment received. Settling…",
  sweeping: "Payment received. Settling…",
};

function show(text: string, state: "progress" | "paid" | "error" = "progress") {
  const status = byId("status");
  status.textContent = text;
  status.dataset.status = state;
}

button.addEventListener("click", () => {
  button.disabled = true;
  pay().catch((err: unknown) => {
    show(explain(err), "error");
    console.error(err);
  });
});

async function pay() {
  show("Creating your payment…");
  const api = createApiClient({ baseUrl: location.origin });
  const created = await api.request<LinkSession>({
    method: "POST",
    path: `/links/${encodeURIComponent(link.slug)}/sessions`,
    // A retry would make a second, unused session: harmless, but one try is enough here.
    attempts: 1,
  });
  document.body.dataset.session = created.id;
  const chain = await chooseChain(created.chains);
  // The burner's authorization is signed for the one chain the payer pays on.
  const burner = await newBurner({ chainId: chain.chain_id, delegate: chain.delegate });
  const client = createApiClient({
    baseUrl: location.origin,
    checkout: { publishableKey: created.publishable_key, clientSecret: created.client_secret },
  });
  const untilExpiry = created.expires_at * 1000 - Date.now();
  await payCheckout(client, {
    id: created.id,
    burner,
    usdc: { [chain.chain_id]: chain.usdc },
    detectionTimeout: Math.max(untilExpiry, 60_000),
    onRegistered: () => showDeposit(burner.address, chain, created.amount),
    onSession: (session) => {
      const label = LABELS[session.status];
      if (label) show(label);
    },
  });
  byId("deposit").hidden = true;
  show("Paid. Thank you!", "paid");
}

/** The chain to pay on: the only one, or the payer's pick when the merchant takes several. */
async function chooseChain(chains: LinkSession["chains"]): Promise<LinkSession["chains"][number]> {
  const [only] = chains;
  if (!only) throw new Error("this link cannot be paid on any chain yet");
  if (chains.length === 1) return only;
  const picker = byId("chains");
  show("Which network will you pay on?");
  picker.hidden = false;
  return new Promise((resolve) => {
    for (const chain of chains) {
      const choice = document.createElement("button");
      choice.type = "button";
      choice.textContent = `${chain.name} (chain ${chain.chain_id})`;
      choice.dataset.chain = String(chain.chain_id);
      choice.addEventListener("click", () => {
        picker.hidden = true;
        resolve(chain);
      });
      picker.append(choice);
    }
  });
}

async function showDeposit(address: string, chain: LinkSession["chains"][number], amount: string) {
  byId("address").textContent = address;
  byId("chain").textContent = `${chain.name} (chain ${chain.chain_id})`;
  // EIP-681: a wallet that scans it proposes the USDC transfer of the amount to the burner.
  const uri = `ethereum:${chain.usdc}@${chain.chain_id}/transfer?address=${address}&uint256=${amount}`;
  byId("qr").src = await QRCode.toDataURL(uri, { margin: 1, width: 220 });
  button.hidden = true;
  byId("deposit").hidden = false;
  show(LABELS.pending ?? "");
}

function explain(err: unknown): string {
  if (err instanceof SessionEndedError)
    return err.session.status === "expired"
      ? "This payment expired before any money arrived. Reload the page to start again."
      : "The payment could not be settled. Your money stays refundable; contact the merchant.";
  if (err instanceof ApiError && err.serverMessage) return err.serverMessage;
  return err instanceof Error ? err.message : String(err);
}
