// The hosted payment page (src/gateway/link-page/) in a real browser, for its e2e test: Debian's
// headless chromium driven by playwright-core, which never downloads a browser of its own
// (`.ci/run` installs the `chromium` package).
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";
import { startTestService, type TestService } from "./service.ts";

const CHROMIUM = "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
    ],
  });
}

/**
 * The service a page test runs against, on the real stack: merchant mode, the executor, a quick
 * indexer, and sessions that expire after `ttlSeconds` (a closed tab's case waits for its expiry).
 */
export const startLinkPageService = (operatorSecret: string, ttlSeconds: number): Promise<TestService> =>
  startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: {
      MERCHANT_MODE: "development",
      OPERATOR_SECRET: operatorSecret,
      RATE_LIMIT_BURST: "1000",
      INDEXER_POLL_MS: "250",
      SESSION_TTL_SECONDS: String(ttlSeconds),
    },
  });

/** A browser profile of its own: its localStorage is the payer's, kept across reloads of its pages. */
export const newProfile = (browser: Browser): Promise<BrowserContext> =>
  browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });

/** Everything the page logs, for the failure message when it does not turn paid. */
export function watch(page: Page): string[] {
  const log: string[] = [];
  page.on("console", (m) => log.push(`console.${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => log.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => log.push(`requestfailed: ${r.url()} ${r.failure()?.errorText}`));
  return log;
}

export const slugOf = (url: string) => new URL(url).pathname.split("/").pop() ?? "";

/** The steps the page has shown, in order. */
export const steps = (page: Page) =>
  page.$$eval("#steps li", (lis) => lis.map((li) => li.getAttribute("data-step")));

/** What the page keeps in the browser's storage for a link (src/gateway/link-page/saved-payment.ts). */
export const saved = (page: Page, slug: string) =>
  // Evaluated in the page (a string: the test's own types have no DOM).
  page.evaluate<string | null>(`localStorage.getItem(${JSON.stringify(`deposit-link:${slug}`)})`);

/** Waits for the deposit address the page shows, with the page's log when it never comes. */
export async function depositAddress(page: Page, log: string[]): Promise<`0x${string}`> {
  await page.waitForSelector("#deposit:not([hidden])", { timeout: 60_000 }).catch((err: unknown) => {
    throw new Error(`the page showed no deposit address:\n${log.join("\n")}`, { cause: err });
  });
  const address = (await page.textContent("#address"))?.trim() as `0x${string}`;
  expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
  return address;
}

/** How the payer pays: a token (by symbol) on a chain; default the first chain's USDC. */
export interface Choice {
  chainId?: number;
  token?: string;
}

/** Picks the chain and token among the page's ways to pay, once it shows them. */
export async function choose(page: Page, choice: Choice = {}) {
  await page.waitForSelector("#chains:not([hidden]), #deposit:not([hidden])", { timeout: 30_000 });
  // One way to pay only: the page asks nothing.
  if (await page.isHidden("#chains")) return;
  const chain = choice.chainId === undefined ? "" : `[data-chain="${choice.chainId}"]`;
  await page.click(`#chains button${chain}[data-token="${choice.token ?? "USDC"}"] >> nth=0`);
}

/**
 * Opens the link, gives `refundTo`, presses Pay, picks the chain and token and waits for the
 * deposit address: the page shows it only once the standing refund to `refundTo` is signed and
 * registered with the burner.
 */
export async function startPayment(page: Page, url: string, refundTo: string, choice: Choice = {}) {
  const log = watch(page);
  const opened = await page.goto(url);
  expect(opened?.status()).toBe(200);
  await page.fill("#refund", refundTo);
  await page.click("#pay");
  await choose(page, choice);
  const address = await depositAddress(page, log);
  const sessionId = (await page.getAttribute("body", "data-session")) as string;
  return { address, sessionId, log };
}

export async function waitForPaid(page: Page, log: string[]): Promise<void> {
  await page.waitForSelector('#status[data-status="paid"]', { timeout: 120_000 }).catch((err: unknown) => {
    throw new Error(`the page did not turn paid:\n${log.join("\n")}`, { cause: err });
  });
  expect(await page.textContent("#status")).toMatch(/paid/i);
}

/** Polls until `check` returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(
  what: string,
  ms: number,
  check: () => Promise<T | undefined>,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`${what} did not happen within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 1_000));
  }
}

/**
 * Where each step's screenshot goes: test-artefacts/link-page/ at the repository's root (git-ignored;
 * docs/LINKS.md, "Tests"), kept after the run for a person to look at.
 */
export const ARTEFACTS = fileURLToPath(new URL("../../test-artefacts/link-page/", import.meta.url));

/** Saves the page as it is now, full length, as `<scenario>-<nn>-<step>.png`. */
export function screenshotter(scenario: string) {
  mkdirSync(ARTEFACTS, { recursive: true });
  let n = 0;
  return async (page: Page, step: string) => {
    n += 1;
    const file = `${ARTEFACTS}${scenario}-${String(n).padStart(2, "0")}-${step}.png`;
    await page.screenshot({ path: file, fullPage: true });
  };
}

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/**
 * Holds the page to axe-core's WCAG 2 A/AA rules as it is now: no violation of impact serious or
 * critical. axe is added with addScriptTag in a profile made with bypassCSP (newA11yProfile): the
 * page's own CSP lets only its script run, as it should for a payer.
 */
export async function expectAccessible(page: Page, step: string) {
  if ((await page.evaluate<string>("typeof axe")) === "undefined") await page.addScriptTag({ path: AXE });
  const found = await page.evaluate<Array<{ id: string; impact: string; help: string; nodes: number }>>(`
    axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] } })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length })))`);
  const serious = found.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(serious, `${step}: ${JSON.stringify(serious)}`).toEqual([]);
}

/** Whether the page scrolls sideways at its current width (a 360 px phone must not). */
export const scrollsSideways = (page: Page) =>
  page.evaluate<boolean>("document.documentElement.scrollWidth > document.documentElement.clientWidth");

/** A phone's profile: 360 px wide, with the CSP bypassed so axe-core can be added (expectAccessible). */
export const newA11yProfile = (browser: Browser): Promise<BrowserContext> =>
  browser.newContext({
    viewport: { width: 360, height: 740 },
    bypassCSP: true,
    permissions: ["clipboard-read", "clipboard-write"],
  });
