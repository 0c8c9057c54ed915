import { randomUUID } from "node:crypto";
import type { Browser, Page } from "playwright-core";
import { type Address, getAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeBurner } from "../../src/client/index.ts";
import { type Ctx, fund, setUpChains, tokenBalance, ZERO } from "../support/delegate.ts";
import {
  announceScript,
  type Eip6963Info,
  installTestWallet,
  type TestWallet,
} from "../support/evm-test-wallet.ts";
import {
  choose,
  depositAddress,
  eventually,
  expectAccessible,
  launchChromium,
  newA11yProfile,
  newProfile,
  saved,
  screenshotter,
  scrollsSideways,
  slugOf,
  startLinkPageService,
  startPayment,
  steps,
  waitForPaid,
  watch,
} from "../support/link-page.ts";
import type { TestService } from "../support/service.ts";

// A payment link on the real stack, paid through its hosted page in a real browser: Debian's
// headless chromium driven by playwright-core (it never downloads a browser). The merchant pins a
// destination and creates a link; the page makes a burner in the browser, registers it on a new
// checkout session, shows the deposit address; the test pays USDC on the local chain (as a payer's
// wallet would, to the address the page shows); the page commits by itself and turns "paid".

const T = 240_000;
const OPERATOR_SECRET = `operator-${"d".repeat(40)}`;
// A session not committed by then expires: the closed-tab case waits for it (its two halves run
// first and last), the others commit well within it (each takes about 13 s, 30 s on a loaded machine).
const TTL_S = 45;

let service: TestService;
let browser: Browser;
let A: Ctx;
let B: Ctx;

beforeAll(async () => {
  service = await startLinkPageService(OPERATOR_SECRET, TTL_S);
  const ctx = await setUpChains();
  [A, B] = [ctx("source"), ctx("destination")];
  browser = await launchChromium();
}, T);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
}, T);

async function api(
  path: string,
  init: { method?: string; key?: string; body?: unknown; accept?: string } = {},
) {
  const res = await fetch(`${service.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      accept: init.accept ?? "application/json",
      ...(init.key ? { authorization: `Bearer ${init.key}` } : {}),
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  const json = res.headers.get("content-type")?.includes("json") && text ? JSON.parse(text) : null;
  return { status: res.status, headers: res.headers, body: json, text };
}

async function newMerchant() {
  const r = await api("/v1/operator/merchants", {
    key: OPERATOR_SECRET,
    body: { name: "Link Shop", email: `links-${randomUUID()}@merchant.test` },
  });
  expect(r.status).toBe(201);
  return { id: r.body.merchant.id as string, sk: r.body.secret_key as string };
}

/** Pins a fresh destination on chain B for money found on `source` (default chain A). */
async function pinDestination(sk: string, source: Ctx = A) {
  const dest = makeBurner().address.toLowerCase() as `0x${string}`;
  const r = await api("/v1/destinations", {
    method: "PUT",
    key: sk,
    body: { source_chain_id: source.chain.chainId, dest_address: dest, dest_chain_id: B.chain.chainId },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return dest;
}

async function newLink(sk: string, body: object) {
  const r = await api("/v1/payment_links", { key: sk, body });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { id: string; url: string; active: boolean; amount: string };
}

/** A payer's wallet address, checksummed as a wallet shows it, holding nothing yet. */
const payerWallet = () => getAddress(makeBurner().address);

// The closed tab's session has to outlive its TTL. Its first half runs first and its second half
// last, so the wait overlaps the other cases instead of adding TTL_S to the file.
let closedTab: { linkUrl: string; refundTo: Address; address: Address; sessionId: string };
let closedTabProfile: Awaited<ReturnType<typeof newProfile>>;

describe("a payment link's hosted page", () => {
  it(
    "a tab closed right after paying: the deposit is made, nothing is signed (its expiry is checked by the last case)",
    async () => {
      const m = await newMerchant();
      await pinDestination(m.sk);
      const link = await newLink(m.sk, { amount: "10000000" });
      const refundTo = payerWallet();
      closedTabProfile = await newProfile(browser);
      const page = await closedTabProfile.newPage();
      const { address, sessionId } = await startPayment(page, link.url, refundTo);

      await fund(A, address, A.chain.usdc, 10_000_000n);
      // Closed before the deposit has its confirmations: the page never saw it, nothing signed an Intent.
      await page.close();
      const open = (await api(`/sessions/${sessionId}`)).body;
      expect(["pending", "detected"]).toContain(open.status);
      expect(open.fee_bps).toBeNull();
      closedTab = { linkUrl: link.url, refundTo, address, sessionId };
    },
    T,
  );

  it(
    "asks for a checked refund address before any address to pay, shows merchant, chain, copy button, time left and each step, and turns paid; at 360 px, every step accessible",
    async () => {
      const m = await newMerchant();
      const dest = await pinDestination(m.sk);
      await pinDestination(m.sk, B); // two source chains: the page asks the payer which one
      const link = await newLink(m.sk, { amount: "10000000", description: "A <b>T-shirt</b>" });
      expect(link).toMatchObject({
        object: "payment_link",
        active: true,
        amount: "10000000",
        currency: "usdc",
      });
      expect(link.url).toBe(`${service.url}/links/${slugOf(link.url)}`);
      expect(slugOf(link.url)).toMatch(/^[A-Za-z0-9_-]{22}$/);

      // A phone's width; each step is screenshotted, held to axe-core and must not scroll sideways.
      const profile = await newA11yProfile(browser);
      const page = await profile.newPage();
      const shot = screenshotter("paid");
      const check = async (step: string) => {
        await shot(page, step);
        await expectAccessible(page, step);
        expect(await scrollsSideways(page), `${step} scrolls sideways at 360 px`).toBe(false);
      };
      const log = watch(page);
      const opened = await page.goto(link.url);
      expect(opened?.status()).toBe(200);
      expect(opened?.headers()["content-security-policy"]).toContain("script-src 'self'");
      await page.waitForSelector("#pay");
      await check("opened");
      expect(await page.textContent("#merchant")).toBe("Link Shop");
      expect(await page.textContent("#amount")).toContain("10.00");
      // The description is text, never markup.
      expect(await page.textContent(".description")).toBe("A <b>T-shirt</b>");
      expect(await page.$(".description b")).toBeNull();

      // No refund address, or one whose EIP-55 checksum is broken (one letter's case changed):
      // refused before anything is made or signed, and no address to pay is shown.
      const refundTo = payerWallet();
      const typo = refundTo.replace(/[a-f]/, (c) => c.toUpperCase());
      expect(typo).not.toBe(refundTo);
      for (const given of ["", "0x1234", typo]) {
        await page.fill("#refund", given);
        await page.click("#pay");
        await page.waitForSelector('#status[data-status="error"]');
        expect(await page.textContent("#status"), given).toMatch(/address/);
        expect(await page.isHidden("#deposit")).toBe(true);
        expect(await page.textContent("#address")).toBe("");
        expect(await page.getAttribute("body", "data-session")).toBeNull();
        expect(await saved(page, slugOf(link.url))).toBeNull();
      }
      await check("refund-address-refused");

      await page.fill("#refund", refundTo);
      await page.click("#pay");
      await page.waitForSelector("#chains:not([hidden])", { timeout: 30_000 });
      // No wallet connected: USDC on each chain, at the link's amount (a swapped token needs the
      // wallet's own quote to sign for, so it is offered once a wallet is connected).
      const ways = await page.$$eval("#chains button", (bs) =>
        bs.map((b) => `${b.getAttribute("data-chain")}:${b.getAttribute("data-token")}:${b.textContent}`),
      );
      expect(ways).toEqual([
        `${A.chain.chainId}:USDC:10 USDC on source`,
        `${B.chain.chainId}:USDC:10 USDC on destination`,
      ]);
      expect(await page.isHidden("#deposit")).toBe(true);
      await check("ways-to-pay");
      await choose(page, { chainId: A.chain.chainId });
      const address = await depositAddress(page, log);
      expect(await page.getAttribute("#qr", "src")).toMatch(/^data:image\/png;base64,/);
      // The QR code is an EIP-681 request for exactly the amount of USDC, on the chain, to the burner.
      expect(await page.getAttribute("#qr", "data-uri")).toBe(
        `ethereum:${A.chain.usdc.toLowerCase()}@${A.chain.chainId}/transfer?address=${address}&uint256=10000000`,
      );
      expect(await page.textContent("#pay-amount")).toBe("10 USDC");
      expect(await page.textContent("#chain")).toBe(`source (chain ${A.chain.chainId})`);
      expect(await page.textContent("#refund-to")).toBe(refundTo);
      expect(await page.textContent("#time-left")).toMatch(/^\d+:\d\d$/);
      await page.click("#copy");
      await page.waitForSelector("#copy:text('Copied')");
      expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(address);
      expect((await steps(page)).slice(0, 2)).toEqual(["refund_signed", "waiting"]);
      await check("deposit-address");

      // The burner is kept in this browser's storage, for this link's one session, until it is final.
      const sessionId = await page.getAttribute("body", "data-session");
      const kept = JSON.parse((await saved(page, slugOf(link.url))) ?? "null");
      expect(kept).toMatchObject({ sessionId, standingRefund: { to: refundTo } });
      expect(makeBurner({ key: kept.burnerKey }).address).toBe(address);
      const registered = await api(`/sessions/${sessionId}`);
      expect(registered.body).toMatchObject({ status: "pending", burner_address: address.toLowerCase() });

      // The payer's wallet sends the amount to the address the page shows.
      await fund(A, address, A.chain.usdc, 10_000_000n);
      await waitForPaid(page, log);
      expect(await steps(page)).toEqual([
        "refund_signed",
        "waiting",
        "detected",
        "signing",
        "processing",
        "paid",
      ]);
      await check("paid");
      expect(await saved(page, slugOf(link.url))).toBeNull();

      const swept = await api(`/sessions/${sessionId}`);
      expect(swept.body).toMatchObject({
        status: "swept",
        outcome: "succeeded",
        merchant_id: m.id,
        dest_address: dest,
      });
      expect(await tokenBalance(B, dest)).toBe(BigInt(swept.body.settled_amount));
      await profile.close();
    },
    T,
  );

  it(
    "a reload after paying resumes the payment from the browser's storage and settles it",
    async () => {
      const m = await newMerchant();
      const dest = await pinDestination(m.sk);
      const link = await newLink(m.sk, { amount: "10000000" });
      const profile = await newProfile(browser);
      const page = await profile.newPage();
      const { address, sessionId, log } = await startPayment(page, link.url, payerWallet());

      // Reloaded before paying: the same session and burner, from storage; no refund address asked
      // again, the same address to pay shown. From here only a resumed page holds the key.
      await page.reload();
      await page.waitForSelector('body[data-resumed="true"] #deposit:not([hidden])', { timeout: 30_000 });
      expect(await page.getAttribute("body", "data-session")).toBe(sessionId);
      expect(await page.textContent("#address")).toBe(address);
      expect(await page.isHidden("#start")).toBe(true);

      // Paid, and reloaded again at once: the page resumes, signs and commits the deposit itself.
      await fund(A, address, A.chain.usdc, 10_000_000n);
      await page.reload();
      await page.waitForSelector('body[data-resumed="true"]');
      await waitForPaid(page, log);
      expect(await saved(page, slugOf(link.url))).toBeNull();

      const swept = await api(`/sessions/${sessionId}`);
      expect(swept.body).toMatchObject({
        status: "swept",
        burner_address: address.toLowerCase(),
        dest_address: dest,
      });
      expect(await tokenBalance(B, dest)).toBe(BigInt(swept.body.settled_amount));
      // Once final, the link opened again starts a new payment.
      await page.reload();
      expect(await page.isVisible("#refund")).toBe(true);
      expect(await page.getAttribute("body", "data-resumed")).toBeNull();
      await profile.close();
    },
    T,
  );
});

describe("a payment link paid from the payer's wallet (an injected EIP-1193 wallet over the local chain)", () => {
  /**
   * A payer holding `amount` of `token` and gas on chain A, with the test wallet in a 360 px profile:
   * `window.ethereum`, or only announced by EIP-6963 when `announce` is given.
   */
  async function payerWithWallet(token: Address, amount: bigint, announce?: Eip6963Info) {
    const key = generatePrivateKey();
    const payer = privateKeyToAccount(key).address;
    await fund(A, payer, ZERO, 10n ** 17n);
    await fund(A, payer, token, amount);
    const profile = await newA11yProfile(browser);
    const wallet = await installTestWallet(profile, key, [A.chain, B.chain], announce);
    return { payer, profile, wallet };
  }

  /**
   * Opens the link, pays with the wallet in `symbol` on chain A (the announced wallet of `rdns` when
   * given, picked among those the page lists); the page turns paid.
   */
  async function payWithWallet(
    scenario: string,
    symbol: string,
    wallet: TestWallet,
    linkUrl: string,
    page: Page,
    rdns?: string,
  ) {
    const shot = screenshotter(scenario);
    const log = watch(page);
    await page.goto(linkUrl);
    await page.waitForSelector("#wallet-start:not([hidden])");
    await shot(page, "opened");
    if (rdns) await expectAccessible(page, `${scenario} wallets`);
    await page.click(rdns ? `#wallet-list button[data-rdns="${rdns}"]` : "#wallet-pay");
    await page.waitForSelector("#chains:not([hidden])", { timeout: 30_000 });
    // With a wallet, every token each chain accepts, each at the amount that pays the link.
    const tokens = await page.$$eval(`#chains button[data-chain="${A.chain.chainId}"]`, (bs) =>
      bs.map((b) => b.getAttribute("data-token")),
    );
    expect(tokens).toEqual(["USDC", "DAI", "WETH", "ETH"]);
    await expectAccessible(page, `${scenario} ways to pay`);
    await shot(page, "ways-to-pay");
    await choose(page, { chainId: A.chain.chainId, token: symbol });
    const address = await depositAddress(page, log);
    await shot(page, "deposit-address");
    await waitForPaid(page, log);
    await shot(page, "paid");
    expect(await scrollsSideways(page)).toBe(false);
    expect(wallet.confirmed, "one confirmation in the wallet").toHaveLength(1);
    return { address, sessionId: (await page.getAttribute("body", "data-session")) as string };
  }

  it(
    "USDC on the source chain: the wallet's account is the refund address, one transfer confirmed, settled",
    async () => {
      const m = await newMerchant();
      const dest = await pinDestination(m.sk);
      const link = await newLink(m.sk, { amount: "10000000" });
      const { payer, profile, wallet } = await payerWithWallet(A.chain.usdc, 10_000_000n);
      const page = await profile.newPage();
      const { address, sessionId } = await payWithWallet("wallet-usdc", "USDC", wallet, link.url, page);
      expect(wallet.confirmed[0]).toMatchObject({ chainId: A.chain.chainId, value: 0n });
      expect(wallet.confirmed[0]?.to.toLowerCase()).toBe(A.chain.usdc.toLowerCase());
      const swept = (await api(`/sessions/${sessionId}`)).body;
      expect(swept).toMatchObject({ status: "swept", outcome: "succeeded", dest_address: dest });
      expect(swept.burner_address).toBe(address.toLowerCase());
      expect(await tokenBalance(A, payer)).toBe(0n);
      expect(await tokenBalance(B, dest)).toBe(BigInt(swept.settled_amount));
      await profile.close();
    },
    T,
  );

  it(
    "DAI through the swap, from a wallet picked among two announced by EIP-6963 (no window.ethereum): the amount the page asked swaps into the link's amount, checked against the wallet's own quote, settled; the other wallet is never asked",
    async () => {
      const m = await newMerchant();
      const dest = await pinDestination(m.sk);
      const link = await newLink(m.sk, { amount: "10000000" });
      const dai = (A.chain.dex as { dai: Address }).dai;
      const icon = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=";
      const { payer, profile, wallet } = await payerWithWallet(dai, 20n * 10n ** 18n, {
        uuid: randomUUID(),
        name: "Test Wallet",
        icon,
        rdns: "test.wallet",
      });
      // Another wallet in the same browser: every request it gets is counted, and refused.
      await profile.addInitScript(
        announceScript(
          { uuid: randomUUID(), name: "Other Wallet", icon, rdns: "other.wallet" },
          `{ async request(args) {
            window.__otherWalletAsked = (window.__otherWalletAsked ?? 0) + 1;
            throw Object.assign(new Error("refused"), { code: 4001 });
          } }`,
        ),
      );
      const page = await profile.newPage();
      const { sessionId } = await payWithWallet("wallet-dai", "DAI", wallet, link.url, page, "test.wallet");
      expect(await page.$$eval("#wallet-list button", (bs) => bs.map((b) => b.textContent?.trim()))).toEqual([
        "Pay with Test Wallet",
        "Pay with Other Wallet",
      ]);
      expect(await page.isHidden("#wallet-pay")).toBe(true);
      expect(await page.evaluate("window.__otherWalletAsked ?? 0")).toBe(0);
      expect(wallet.confirmed[0]?.to.toLowerCase()).toBe(dai.toLowerCase());
      const swept = (await api(`/sessions/${sessionId}`)).body;
      expect(swept).toMatchObject({ status: "swept", outcome: "succeeded", dest_address: dest });
      expect(swept.detected_token).toBe(dai.toLowerCase());
      const paid = BigInt(swept.detected_amount);
      expect(await tokenBalance(A, payer, dai)).toBe(20n * 10n ** 18n - paid);
      expect(BigInt(swept.swap_output_amount)).toBeGreaterThanOrEqual(10_000_000n);
      await profile.close();
    },
    T,
  );
});

describe("a payment link whose merchant can no longer be paid", () => {
  it(
    "its publishable key revoked after the link was made: the page says so up front and asks for nothing; no session is made",
    async () => {
      const m = await newMerchant();
      await pinDestination(m.sk);
      const link = await newLink(m.sk, { amount: "1000000" });
      const slug = slugOf(link.url);
      const keys = (await api("/v1/merchant", { key: m.sk })).body.keys as Array<{
        id: string;
        type: string;
      }>;
      const pk = keys.find((k) => k.type === "publishable");
      expect((await api(`/v1/keys/${pk?.id}/revoke`, { key: m.sk, method: "POST" })).status).toBe(204);

      expect((await api(`/links/${slug}`)).body).toMatchObject({ slug, payable: false });
      const session = await api(`/links/${slug}/sessions`, { method: "POST" });
      expect([session.status, session.body]).toEqual([
        409,
        { error: "this merchant cannot take payments right now" },
      ]);
      const profile = await newProfile(browser);
      const page = await profile.newPage();
      const opened = await page.goto(link.url);
      expect(opened?.status()).toBe(200);
      expect(await page.textContent("#status")).toMatch(/cannot take payments right now/);
      expect(await page.textContent("#amount")).toContain("1.00");
      // No refund address asked, no button to press: nothing the payer could start but not finish.
      expect(await page.$("#refund")).toBeNull();
      expect(await page.$("#pay")).toBeNull();
      expect(await page.isHidden("#deposit")).toBe(true);
      expect(await saved(page, slug)).toBeNull();
      // A new pk_ makes the same link payable again.
      expect((await api("/v1/keys/roll", { key: m.sk, body: { type: "publishable" } })).status).toBe(200);
      await page.reload();
      expect(await page.isVisible("#refund")).toBe(true);
      await profile.close();
    },
    T,
  );
});

describe("payment link routes", () => {
  it(
    "merchant API: create, read and deactivate under the sk_, another merchant's is 404, no key 401",
    async () => {
      const m = await newMerchant();
      const other = await newMerchant();
      // Before a destination is pinned no link is made: nobody could pay it. The answer says what is missing.
      const early = await api("/v1/payment_links", { key: m.sk, body: { amount: "2500000" } });
      expect([early.status, early.body]).toEqual([
        409,
        { error: "the merchant cannot be paid yet: no destination is pinned (PUT /v1/destinations)" },
      ]);
      await pinDestination(m.sk);
      const link = await newLink(m.sk, { amount: "2500000" });
      expect((await api(`/v1/payment_links/${link.id}`, { key: m.sk })).body).toMatchObject({
        id: link.id,
        amount: "2500000",
        description: null,
        expires_at: null,
      });
      expect((await api(`/v1/payment_links/${link.id}`, { key: other.sk })).status).toBe(404);
      expect(
        (await api(`/v1/payment_links/${link.id}/deactivate`, { key: other.sk, method: "POST" })).status,
      ).toBe(404);
      const anonymous = await api(`/v1/payment_links/${link.id}`);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
      for (const body of [
        { amount: "1.5" },
        { amount: "0" },
        { amount: "10", extra: 1 },
        { amount: "10", expires_at: 1 },
      ])
        expect((await api("/v1/payment_links", { key: m.sk, body })).status, JSON.stringify(body)).toBe(400);

      const off = await api(`/v1/payment_links/${link.id}/deactivate`, { key: m.sk, method: "POST" });
      expect(off.body).toMatchObject({ id: link.id, active: false });
      const again = await api(`/v1/payment_links/${link.id}/deactivate`, { key: m.sk, method: "POST" });
      expect(again.body).toMatchObject({ id: link.id, active: false });
    },
    T,
  );

  it(
    "public routes: JSON to an API client, HTML to a browser, 410 once inactive or expired, 404 for an unknown slug",
    async () => {
      const m = await newMerchant();
      await pinDestination(m.sk);
      const link = await newLink(m.sk, { amount: "1000000", description: "Coffee" });
      const slug = slugOf(link.url);
      const json = await api(`/links/${slug}`);
      expect(json.status).toBe(200);
      expect(json.body).toEqual({
        object: "payment_link",
        slug,
        amount: "1000000",
        currency: "usdc",
        description: "Coffee",
        expires_at: null,
        merchant_name: "Link Shop",
        payable: true,
      });
      const html = await api(`/links/${slug}`, { accept: "text/html,application/xhtml+xml,*/*;q=0.8" });
      expect(html.headers.get("content-type")).toMatch(/^text\/html/);
      expect(html.text).toContain("1.00");

      const created = await api(`/links/${slug}/sessions`, { method: "POST" });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      expect(created.body).toMatchObject({
        id: expect.any(String),
        client_secret: expect.stringMatching(/^cs_test_/),
        publishable_key: expect.stringMatching(/^pk_test_/),
        amount: "1000000",
        chains: [
          { chain_id: A.chain.chainId, delegate: A.chain.delegate.toLowerCase(), usdc: expect.any(String) },
        ],
      });
      // Every token the chain accepts, with what pays the link in it: USDC the amount itself, the
      // others what the local pools swap into at least the amount (a little over: the headroom).
      const tokens = created.body.chains[0].tokens as Array<{
        symbol: string;
        decimals: number;
        amount: string;
      }>;
      expect(tokens.map((t) => [t.symbol, t.decimals])).toEqual([
        ["USDC", 6],
        ["DAI", 18],
        ["WETH", 18],
        ["ETH", 18],
      ]);
      expect(tokens[0]?.amount).toBe("1000000");
      expect(BigInt(tokens[1]?.amount ?? "0")).toBeGreaterThan(10n ** 18n);
      expect(BigInt(tokens[1]?.amount ?? "0")).toBeLessThan(11n * 10n ** 17n);
      expect(tokens[2]?.amount).toBe(tokens[3]?.amount); // the coin is swapped as WETH
      const session = await api(`/sessions/${created.body.id}`);
      expect(session.body).toMatchObject({ status: "pending", merchant_id: m.id, burner_address: null });

      expect((await api("/links/AAAAAAAAAAAAAAAAAAAAAA")).status).toBe(404);
      expect((await api("/links/AAAAAAAAAAAAAAAAAAAAAA/sessions", { method: "POST" })).status).toBe(404);

      await api(`/v1/payment_links/${link.id}/deactivate`, { key: m.sk, method: "POST" });
      const gone = await api(`/links/${slug}/sessions`, { method: "POST" });
      expect(gone.status).toBe(410);
      expect(gone.body.error).toMatch(/deactivated/);
      expect((await api(`/links/${slug}`)).status).toBe(410);
      const closedPage = await api(`/links/${slug}`, { accept: "text/html" });
      expect(closedPage.status).toBe(410);
      expect(closedPage.text).toContain("deactivated");

      const soon = await newLink(m.sk, { amount: "1000000", expires_at: Math.floor(Date.now() / 1000) + 2 });
      await new Promise((r) => setTimeout(r, 2_500));
      const expired = await api(`/links/${slugOf(soon.url)}/sessions`, { method: "POST" });
      expect(expired.status).toBe(410);
      expect(expired.body.error).toMatch(/expired/);
    },
    T,
  );
});

describe("a payment link's hosted page, after the other cases", () => {
  it(
    "the closed tab strands nothing: its session expires uncommitted and the money goes back to the refund address",
    async () => {
      const { linkUrl, refundTo, address, sessionId } = closedTab;
      const refunded = await eventually("the refund to the payer", TTL_S * 1000 + 60_000, async () => {
        const s = (await api(`/sessions/${sessionId}`)).body;
        return s.refunds?.some((r: { status: string }) => r.status === "confirmed") ? s : undefined;
      });
      expect(refunded).toMatchObject({
        status: "expired",
        detected_amount: "10000000",
        fee_bps: null, // never committed
        refunds: [{ kind: "refund_all", status: "confirmed" }],
      });
      expect(getAddress(refunded.refunds[0].to)).toBe(refundTo);
      expect(await tokenBalance(A, refundTo)).toBe(10_000_000n);
      expect(await tokenBalance(A, address)).toBe(0n);

      // The link opened again in this browser tells the payer, then forgets the burner.
      const again = await closedTabProfile.newPage();
      await again.goto(linkUrl);
      await again.waitForSelector('#status[data-status="refunded"]', { timeout: 30_000 });
      expect(await again.textContent("#status")).toContain(refundTo);
      expect(await steps(again)).toEqual(["refund_signed", "waiting", "detected", "returning", "refunded"]);
      expect(await saved(again, slugOf(linkUrl))).toBeNull();
      await closedTabProfile.close();
    },
    T,
  );
});
