/**
 * The hosted payment page's HTML (GET /links/:slug to a browser): the link's terms, server-rendered
 * and escaped, and the bundled script that does the rest in the payer's browser. What the script
 * needs arrives as JSON in a non-executed script element; the Content-Security-Policy lets only our
 * own script run.
 */

export interface PageLink {
  slug: string;
  /** USDC base units. */
  amount: string;
  description: string | null;
  /** Who the payer pays, shown above the amount. */
  merchantName: string | null;
  /** Whether the merchant can take a payment now; if not, the page asks the payer for nothing. */
  payable: boolean;
  /** Whether an EVM chain is offered (false: the merchant is paid on Solana alone). */
  evm: boolean;
  /** The Solana chain the merchant takes USDC on, or null (none configured, or no destination pinned for it). */
  solana: PageSolana | null;
}

/** A Solana chain a link can be paid on in USDC, as POST /links/:slug/sessions names it. */
export interface PageSolana {
  chain_id: number;
  name: string;
  /** Base58. */
  usdc_mint: string;
}

/** 6-decimal base units as a decimal USDC string ("25000000" -> "25.00", "1500001" -> "1.500001"). */
export function formatUsdc(baseUnits: string): string {
  const padded = baseUnits.padStart(7, "0");
  const whole = padded.slice(0, -6).replace(/^0+(?=\d)/, "");
  const fraction = padded.slice(-6).replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction}`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** JSON safe inside a <script> element: no "</script>" or "<!--" can end or bend it. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

export const PAGE_CSP =
  "default-src 'none'; script-src 'self'; connect-src 'self'; img-src 'self' data:; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** What a payer sees when the link's merchant cannot take payments (its set-up changed since). */
export const NOT_PAYABLE = "This merchant cannot take payments right now. Nothing has been asked of you.";

/**
 * The page for an active link. The deposit address stays hidden until the payer gave a refund
 * address and the burner signed the standing refund to it (page.ts): no address to pay before the
 * money has a way back.
 */
export function linkPage(link: PageLink, scriptPath: string): string {
  const amount = formatUsdc(link.amount);
  const title = link.description ? `${link.description}: ${amount} USDC` : `Pay ${amount} USDC`;
  // Only what the script needs: the link row also carries the merchant's id and its history.
  const data: PageLink = {
    slug: link.slug,
    amount: link.amount,
    description: link.description,
    merchantName: link.merchantName,
    payable: link.payable,
    evm: link.evm,
    solana: link.solana,
  };
  // Not payable now: no refund address asked, no pay button. The script still runs, so a payment
  // this browser already started resumes (its session keeps the destination it was made with).
  const start = link.payable
    ? `<div id="start">
  <label for="refund">Your ${link.evm ? "" : "Solana "}wallet address, for a refund</label>
  <input id="refund" type="text" autocomplete="off" spellcheck="false" placeholder="${refundPlaceholder(link)}">
  <p class="hint">If the payment cannot be completed, the money goes back to this address by itself.${link.solana ? ` ${link.evm ? "A Solana address pays" : "You pay"} in USDC on Solana.` : ""}</p>
  <button id="pay" type="button">Continue to pay</button>
  <div id="wallet-start" hidden>
    <p class="hint">Or let your wallet fill in your address and send the payment, in any token it offers:</p>
    <button id="wallet-pay" type="button">Pay with wallet</button>
    <div id="wallet-list" role="group" aria-label="Your wallets" hidden></div>
  </div>
  <div id="solana-wallet-start" hidden>
    <p class="hint">Or pay in USDC on Solana from your Solana wallet:</p>
    <button id="solana-wallet-pay" type="button">Pay with Solana wallet</button>
  </div>
</div>`
    : "";
  const status = link.payable
    ? '<p id="status" role="status" aria-live="polite"></p>'
    : `<p id="status" role="status" aria-live="polite" data-status="error">${NOT_PAYABLE}</p>`;
  return page(
    title,
    `${link.merchantName ? `<p class="merchant">Pay <strong id="merchant">${escapeHtml(link.merchantName)}</strong></p>` : ""}
<p class="amount" id="amount">${escapeHtml(amount)} <span>USDC</span></p>
${link.description ? `<p class="description">${escapeHtml(link.description)}</p>` : ""}
${start}
<ul id="chains" aria-label="Ways to pay" hidden></ul>
<div id="deposit" hidden>
  <p>Send exactly <strong id="pay-amount"></strong> on <strong id="chain"></strong> to</p>
  <img id="qr" alt="QR code of the payment request: token, amount, chain and address" width="220" height="220">
  <p><code id="address"></code> <button id="copy" type="button">Copy</button></p>
  <p id="time">Time left to pay: <strong id="time-left"></strong></p>
  <p class="hint">Keep this page open until it says paid. If it closes, open this link again in this
  browser to finish; otherwise, once the time is up, the money goes back to <code id="refund-to"></code>.</p>
</div>
<ol id="steps"></ol>
${status}
<script type="application/json" id="link-data">${scriptJson(data)}</script>
<script type="module" src="${escapeHtml(scriptPath)}"></script>`,
  );
}

/** What the refund field takes: an EVM address, a Solana one, or either. */
const refundPlaceholder = (link: PageLink) =>
  link.evm ? (link.solana ? "0x… or a Solana address" : "0x…") : "a Solana address";

/** The page for a link that takes no more payments (410) or does not exist (404). */
export function closedPage(message: string): string {
  return page("Payment link", `<p id="status" role="status">${escapeHtml(message)}</p>`);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1b1b1f; overflow-wrap: anywhere; }
  .amount { font-size: 2.5rem; font-weight: 600; margin: 0; }
  .amount span, .hint, .merchant { color: #666; font-size: 1rem; }
  .merchant strong { color: #1b1b1f; }
  label { display: block; margin: 1rem 0 0.3rem; }
  input { width: 100%; box-sizing: border-box; font: 0.95rem monospace; padding: 0.5rem; }
  #copy { font-size: 0.9rem; padding: 0.2rem 0.6rem; }
  #steps li[data-state="done"] { color: #1a7f37; }
  button { font-size: 1.1rem; padding: 0.7rem 1.4rem; border-radius: 0.5rem; border: 0; background: #2b59c3; color: #fff; cursor: pointer; }
  button[disabled] { opacity: 0.5; cursor: default; }
  #chains { list-style: none; padding: 0; }
  #chains li { margin: 0.8rem 0; color: #555; }
  #chains button, #wallet-list button { display: block; width: 100%; margin: 0.4rem 0; text-align: left; }
  #wallet-list img { width: 1.5rem; height: 1.5rem; vertical-align: middle; margin-right: 0.5rem; }
  code { word-break: break-all; font-size: 0.95rem; }
  #status { font-weight: 600; }
  #status[data-status="paid"] { color: #1a7f37; }
  #status[data-status="error"] { color: #b42318; }
</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}
