import { randomUUID } from "node:crypto";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
} from "@solana/spl-token";
import { type Connection, Keypair, PublicKey, sendAndConfirmTransaction, Transaction } from "@solana/web3.js";
import type { Browser, BrowserContext, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BOUNCE_SETUP_REFRESH_MS } from "../../src/client/actions/keep-solana-bounce-setup.ts";
import { solanaPayUri } from "../../src/gateway/link-page/payment-uri.ts";
import { type JsonRequest, requestJson } from "../support/http.ts";
import {
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
  steps,
  waitForPaid,
  watch,
} from "../support/link-page.ts";
import type { TestService } from "../support/service.ts";
import { fundSolanaWallet, solanaChainIdOf, stackSolanaOf } from "../support/solana-node.ts";
import { installSolanaTestWallet } from "../support/solana-test-wallet.ts";

// A payment link paid in USDC on Solana through its hosted page, in Debian's headless chromium on
// the real stack (the EVM scenarios: ./payment-link-page.e2e.test.ts). The merchant pins a Solana
// destination; the page makes an ed25519 burner in the browser, opens a Solana checkout through the
// link, hands the service the burner's bounce setup (kept fresh while it waits), shows the burner's
// address and a Solana Pay request, and once the deposit is seen signs the sweep with the burner key;
// the session is swept to the destination, or bounced to the payer when the tab was closed first.

const T = 240_000;
const OPERATOR_SECRET = `operator-${"e".repeat(40)}`;
const AMOUNT = 10_000_000n; // 10 USDC
// A session not swept by then expires: the closed tabs' cases wait for it (their halves run early
// and last, so the wait overlaps the other cases), the others settle well within it.
const TTL_S = 60;

let service: TestService;
let browser: Browser;
let sol: Connection;
let mint: PublicKey;
let funder: Keypair;
let chainId: number;

beforeAll(async () => {
  service = await startLinkPageService(OPERATOR_SECRET, TTL_S);
  ({ sol, mint, payer: funder } = stackSolanaOf(service));
  chainId = solanaChainIdOf(service);
  browser = await launchChromium();
}, T);
afterAll(async () => {
  await browser?.close();
  await service?.stop();
}, T);

const call = (path: string, init: JsonRequest = {}) => requestJson(service.url, path, init);

const usdcOf = async (owner: PublicKey): Promise<bigint> => {
  const info = await sol.getTokenAccountBalance(getAssociatedTokenAddressSync(mint, owner)).catch(() => null);
  return info ? BigInt(info.value.amount) : 0n;
};

/**
 * A merchant taking USDC on Solana, paid to a fresh wallet with its USDC account (the sweep pays
 * accounts that exist), and on the first EVM chain unless `evm` is false, with a link for 10 USDC.
 */
async function solanaMerchantLink({ evm = true } = {}) {
  const made = await call("/v1/operator/merchants", {
    key: OPERATOR_SECRET,
    body: { name: "Solana Shop", email: `sol-links-${randomUUID()}@merchant.test` },
  });
  expect(made.status).toBe(201);
  const sk = made.body.secret_key as string;
  const dest = Keypair.generate().publicKey;
  await getOrCreateAssociatedTokenAccount(sol, funder, mint, dest);
  const evmChain = service.config.chains?.find((c) => c.family === "evm");
  if (!evmChain) throw new Error("the service has no EVM chain");
  for (const pin of [
    { source_chain_id: chainId, dest_address: dest.toBase58(), dest_chain_id: chainId },
    ...(evm
      ? [
          {
            source_chain_id: evmChain.chainId,
            dest_address: `0x${"ab".repeat(20)}`,
            dest_chain_id: evmChain.chainId,
          },
        ]
      : []),
  ]) {
    const r = await call("/v1/destinations", { method: "PUT", key: sk, body: pin });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  const link = await call("/v1/payment_links", { key: sk, body: { amount: AMOUNT.toString() } });
  expect(link.status, JSON.stringify(link.body)).toBe(200);
  return { dest, url: link.body.url as string };
}

/** A payer holding the link's amount in a Wallet Standard test wallet installed in `profile`, and a page of it. */
async function payerWithWallet(profile: BrowserContext) {
  const payer = Keypair.generate();
  await fundSolanaWallet(sol, funder, mint, payer.publicKey, { lamports: 50_000_000n, usdc: AMOUNT });
  const wallet = await installSolanaTestWallet(profile, payer, sol);
  const page = await profile.newPage();
  return { payer, wallet, page, log: watch(page) };
}

/** Waits until the session is swept and checks the destination got its settled amount on chain. */
async function expectSwept(sessionId: string, dest: PublicKey) {
  const swept = await call(`/sessions/${sessionId}`);
  expect(swept.body).toMatchObject({
    status: "swept",
    outcome: "succeeded",
    detected_amount: AMOUNT.toString(),
  });
  expect(await usdcOf(dest)).toBe(BigInt(swept.body.settled_amount));
  expect(BigInt(swept.body.settled_amount)).toBe(AMOUNT - BigInt(swept.body.fee_amount));
}

/** A registration of the page that hands the service a bounce setup (POST /sessions/:id/solana-burner). */
const handsOverSetup = (r: Request) =>
  r.url().endsWith("/solana-burner") && (r.postData() ?? "").includes("bounce_setup");

/** Pays the link's amount to the burner's USDC account from `from`'s, as a phone wallet reading the request would. */
async function payByHand(from: Keypair, burner: PublicKey) {
  const to = getAssociatedTokenAddressSync(mint, burner);
  await sendAndConfirmTransaction(
    sol,
    new Transaction().add(
      createAssociatedTokenAccountIdempotentInstruction(from.publicKey, to, burner, mint),
      createTransferCheckedInstruction(
        getAssociatedTokenAddressSync(mint, from.publicKey),
        mint,
        to,
        from.publicKey,
        AMOUNT,
        6,
      ),
    ),
    [from],
    { commitment: "confirmed" },
  );
}

let closedTab: { sessionId: string; payer: PublicKey; burner: PublicKey };
let closedByHand: { sessionId: string; payer: PublicKey; burner: PublicKey; setups: number[] };

describe("a payment link paid in USDC on Solana", () => {
  it(
    "a merchant paid on Solana alone; a tab closed right after the wallet's transfer: the page handed the bounce setup over first, nothing else is signed (the bounce is checked by the last case)",
    async () => {
      // No EVM pin: the link is made all the same (its creation is checked in solanaMerchantLink).
      const { url } = await solanaMerchantLink({ evm: false });
      const profile = await newProfile(browser);
      const { payer, wallet, page, log } = await payerWithWallet(profile);
      // The page never hears of the deposit (its event stream is held unanswered): a tab closed
      // before detection, however fast the indexer. The setup can only come from the transfer's end.
      await page.route("**/sessions/*/events*", () => {});
      expect((await page.goto(url))?.status()).toBe(200);
      await page.waitForSelector("#solana-wallet-start:not([hidden])", { timeout: 30_000 });
      // Solana alone is offered: a Solana refund address, no EVM wallet.
      expect(await page.getAttribute("#refund", "placeholder")).toBe("a Solana address");
      expect(await page.isHidden("#wallet-start")).toBe(true);
      // The setup's registration the page sends once the wallet reports the transfer confirmed (the
      // one before the address was shown, and its refreshes, are the by-hand case's below).
      const setupAttached = page.waitForResponse(
        (r) => handsOverSetup(r.request()) && wallet.confirmed.length === 1,
        { timeout: 90_000 },
      );
      await page.click("#solana-wallet-pay");
      const answered = await setupAttached.catch((err) => {
        throw new Error(`no bounce setup handed over:\n${log.join("\n")}`, { cause: err });
      });
      const sessionId = (await page.getAttribute("body", "data-session")) as string;
      const burner = new PublicKey(((await page.textContent("#address")) ?? "").trim());
      await profile.close();
      // 200, or 409 already_registered when the indexer saw the deposit first and the service had
      // already relayed the setup the page kept before showing the address: either way one setup
      // stands for the bounce, which the last case checks.
      if (answered.status() !== 200) {
        expect(answered.status()).toBe(409);
        expect(typeof ((await answered.json()) as { error?: unknown }).error).toBe("string");
      }
      expect(wallet.confirmed).toHaveLength(1);
      expect(await usdcOf(burner)).toBe(AMOUNT);
      // Closed before the page could sign a sweep: only the bounce can end it.
      const open = (await call(`/sessions/${sessionId}`)).body;
      expect(["pending", "detected"]).toContain(open.status);
      expect(open.fee_bps).toBeNull();
      closedTab = { sessionId, payer: payer.publicKey, burner };
    },
    T,
  );

  it(
    "through a Wallet Standard wallet: its account is the refund address, one confirmation, swept to the destination; at 360 px, every step accessible",
    async () => {
      const { dest, url } = await solanaMerchantLink();
      const profile = await newA11yProfile(browser);
      const { payer, wallet, page, log } = await payerWithWallet(profile);
      const shot = screenshotter("solana-wallet");
      const check = async (step: string) => {
        await shot(page, step);
        await expectAccessible(page, step);
        expect(await scrollsSideways(page), `${step} scrolls sideways at 360 px`).toBe(false);
      };
      expect((await page.goto(url))?.status()).toBe(200);
      await page.waitForSelector("#solana-wallet-start:not([hidden])", { timeout: 30_000 }).catch((err) => {
        throw new Error(`no Solana wallet offered:\n${log.join("\n")}`, { cause: err });
      });
      await check("opened");

      await page.click("#solana-wallet-pay");
      await page.waitForSelector("#deposit:not([hidden])", { timeout: 60_000 }).catch((err) => {
        throw new Error(`no deposit address:\n${log.join("\n")}`, { cause: err });
      });
      const burner = (await page.textContent("#address"))?.trim() ?? "";
      expect(burner).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
      expect(await page.textContent("#refund-to")).toBe(payer.publicKey.toBase58());
      expect(await page.getAttribute("#qr", "data-uri")).toMatch(
        new RegExp(
          `^solana:${burner}\\?amount=10&spl-token=${mint.toBase58()}&reference=[1-9A-HJ-NP-Za-km-z]{32,44}$`,
        ),
      );
      await check("deposit-address");

      await waitForPaid(page, log);
      await check("paid");
      expect(wallet.confirmed).toHaveLength(1);
      expect(await steps(page)).toEqual([
        "refund_signed",
        "waiting",
        "detected",
        "signing",
        "processing",
        "paid",
      ]);
      expect(await saved(page, slugOf(url))).toBeNull();
      const sessionId = (await page.getAttribute("body", "data-session")) as string;
      await expectSwept(sessionId, dest);
      expect(await usdcOf(payer.publicKey)).toBe(0n);
      await profile.close();
    },
    T,
  );

  it(
    "by hand: a Solana refund address, the burner's address and a Solana Pay request of the exact amount, paid by any wallet, swept",
    async () => {
      const { dest, url } = await solanaMerchantLink();
      const profile = await newProfile(browser);
      const page = await profile.newPage();
      const log = watch(page);
      const shot = screenshotter("solana-by-hand");
      expect((await page.goto(url))?.status()).toBe(200);
      await shot(page, "opened");
      // A program-derived address has no key: refused like a malformed one, nothing made.
      await page.fill("#refund", getAssociatedTokenAddressSync(mint, dest).toBase58());
      await page.click("#pay");
      await page.waitForSelector('#status[data-status="error"]');
      expect(await page.getAttribute("body", "data-session")).toBeNull();

      const refundTo = Keypair.generate().publicKey.toBase58();
      await page.fill("#refund", refundTo);
      await page.click("#pay");
      await page.waitForSelector("#deposit:not([hidden])", { timeout: 60_000 }).catch((err) => {
        throw new Error(`no deposit address:\n${log.join("\n")}`, { cause: err });
      });
      const burner = (await page.textContent("#address"))?.trim() ?? "";
      const kept = JSON.parse((await saved(page, slugOf(url))) ?? "null");
      expect(kept).toMatchObject({ family: "solana", refundTo, chain: { chain_id: chainId } });
      // The QR code is the Solana Pay transfer request of the link's amount of USDC to the burner.
      expect(await page.getAttribute("#qr", "data-uri")).toBe(
        solanaPayUri({
          recipient: burner,
          amount: AMOUNT,
          decimals: 6,
          splToken: mint.toBase58(),
          reference: kept.reference,
        }),
      );
      expect(await page.textContent("#pay-amount")).toBe("10.00 USDC");
      await shot(page, "deposit-address");

      // Paid as a phone wallet reading the request would: to the burner's USDC account, opened on the way.
      await payByHand(funder, new PublicKey(burner));
      await waitForPaid(page, log);
      await shot(page, "paid");
      await expectSwept((await page.getAttribute("body", "data-session")) as string, dest);
      await profile.close();
    },
    T,
  );

  it(
    "paid by hand and the tab closed before the page saw the deposit: the page had kept a fresh bounce setup with the service (the bounce is checked by the last case)",
    async () => {
      const { url } = await solanaMerchantLink();
      const profile = await newProfile(browser);
      const page = await profile.newPage();
      const log = watch(page);
      // As in the wallet's closed tab: the page never hears of the deposit, so it signs nothing at
      // detection, and nothing tells it that a phone wallet paid.
      await page.route("**/sessions/*/events*", () => {});
      const setups: number[] = [];
      page.on("response", (r) => {
        if (handsOverSetup(r.request())) setups.push(r.status());
      });
      const payer = Keypair.generate();
      await fundSolanaWallet(sol, funder, mint, payer.publicKey, { lamports: 50_000_000n, usdc: AMOUNT });
      expect((await page.goto(url))?.status()).toBe(200);
      await page.fill("#refund", payer.publicKey.toBase58());
      await page.click("#pay");
      await page.waitForSelector("#deposit:not([hidden])", { timeout: 60_000 }).catch((err) => {
        throw new Error(`no deposit address:\n${log.join("\n")}`, { cause: err });
      });
      const sessionId = (await page.getAttribute("body", "data-session")) as string;
      const burner = new PublicKey(((await page.textContent("#address")) ?? "").trim());
      // Paid a little after the page's first refresh (every 20 s), so the setup the service holds
      // when the deposit lands is a replacement; the tab is closed as soon as the wallet confirms.
      await page.waitForTimeout(BOUNCE_SETUP_REFRESH_MS + 8_000);
      await payByHand(payer, burner);
      await profile.close();
      expect(await usdcOf(burner)).toBe(AMOUNT);
      expect(await usdcOf(payer.publicKey)).toBe(0n);
      const open = (await call(`/sessions/${sessionId}`)).body;
      expect(["pending", "detected"]).toContain(open.status);
      expect(open.fee_bps).toBeNull();
      closedByHand = { sessionId, payer: payer.publicKey, burner, setups };
    },
    T,
  );
});

describe("a payment link paid in USDC on Solana, after the other cases", () => {
  /** The closed tab's session expires unswept, and the service bounces its USDC to the payer's wallet. */
  async function expectBounced({ sessionId, payer, burner }: typeof closedTab) {
    const bounced = await eventually("the bounce to the payer", TTL_S * 1000 + 90_000, async () => {
      const s = (await call(`/sessions/${sessionId}`)).body;
      return s.status === "bounced" ? s : undefined;
    });
    expect(bounced).toMatchObject({
      detected_amount: AMOUNT.toString(),
      fee_bps: null, // never committed
      refunds: [{ kind: "bounce", status: "confirmed" }],
    });
    expect(bounced.refunds[0].to).toBe(payer.toBase58());
    expect(await usdcOf(payer)).toBe(AMOUNT);
    // The bounce closes the burner's USDC account: nothing is left in it.
    expect(await sol.getAccountInfo(getAssociatedTokenAddressSync(mint, burner))).toBeNull();
  }

  it(
    "the tab closed after the wallet's transfer strands nothing: its session expires unswept and the service bounces the USDC to the payer's wallet",
    () => expectBounced(closedTab),
    T,
  );

  it(
    "the tab closed after paying by hand strands nothing either: bounced to the payer's wallet by a setup the page had signed again since the first",
    async () => {
      await expectBounced(closedByHand);
      // One before the address was shown, then at least one refresh before the payment: each taken.
      expect(closedByHand.setups.length).toBeGreaterThanOrEqual(2);
      expect(new Set(closedByHand.setups)).toEqual(new Set([200]));
    },
    T,
  );
});
