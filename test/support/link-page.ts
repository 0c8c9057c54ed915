// The hosted payment page (src/gateway/link-page/) in a real browser, for its e2e test: Debian's
// headless chromium driven by playwright-core, which never downloads a browser of its own
// (`.ci/run` installs the `chromium` package).
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { expect } from "vitest";

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

/**
 * Opens the link, gives `refundTo`, presses Pay (and picks `chainId` when asked) and waits for the
 * deposit address: the page shows it only once the standing refund to `refundTo` is signed and
 * registered with the burner.
 */
export async function startPayment(page: Page, url: string, refundTo: string, chainId?: number) {
  const log = watch(page);
  const opened = await page.goto(url);
  expect(opened?.status()).toBe(200);
  await page.fill("#refund", refundTo);
  await page.click("#pay");
  if (chainId !== undefined) {
    await page.waitForSelector("#chains:not([hidden])", { timeout: 30_000 });
    await page.click(`#chains button[data-chain="${chainId}"]`);
  }
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
