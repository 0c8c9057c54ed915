import { randomUUID } from "node:crypto";
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
  getOrCreateAssociatedTokenAccount,
} from "@solana/spl-token";
import { type Connection, Keypair, PublicKey, sendAndConfirmTransaction, Transaction } from "@solana/web3.js";
import type { Browser, BrowserContext } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
// link, shows the burner's address and a Solana Pay request, and once the deposit is seen signs the
// bounce setup and the sweep with the burner key; the session is swept to the destination.

const T = 240_000;
const OPERATOR_SECRET = `operator-${"e".repeat(40)}`;
const AMOUNT = 10_000_000n; // 10 USDC
// A session not swept by then expires: the closed tab's case waits for it (its two halves run first
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

let closedTab: { sessionId: string; payer: PublicKey; burner: PublicKey };

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
      // The setup's registration, sent by the page once the wallet reports the transfer confirmed.
      const setupAttached = page.waitForResponse(
        (r) => r.url().endsWith("/solana-burner") && (r.request().postData() ?? "").includes("bounce_setup"),
        { timeout: 90_000 },
      );
      await page.click("#solana-wallet-pay");
      const answered = await setupAttached.catch((err) => {
        throw new Error(`no bounce setup handed over:\n${log.join("\n")}`, { cause: err });
      });
      const sessionId = (await page.getAttribute("body", "data-session")) as string;
      const burner = new PublicKey(((await page.textContent("#address")) ?? "").trim());
      await profile.close();
      expect(answered.status()).toBe(200);
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
      const owner = new PublicKey(burner);
      const to = getAssociatedTokenAddressSync(mint, owner);
      await sendAndConfirmTransaction(
        sol,
        new Transaction().add(
          createAssociatedTokenAccountIdempotentInstruction(funder.publicKey, to, owner, mint),
          createTransferCheckedInstruction(
            getAssociatedTokenAddressSync(mint, funder.publicKey),
            mint,
            to,
            funder.publicKey,
            AMOUNT,
            6,
          ),
        ),
        [funder],
        { commitment: "confirmed" },
      );
      await waitForPaid(page, log);
      await shot(page, "paid");
      await expectSwept((await page.getAttribute("body", "data-session")) as string, dest);
      await profile.close();
    },
    T,
  );
});

describe("a payment link paid in USDC on Solana, after the other cases", () => {
  it(
    "the closed tab strands nothing: its session expires unswept and the service bounces the USDC to the payer's wallet",
    async () => {
      const { sessionId, payer, burner } = closedTab;
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
    },
    T,
  );
});
