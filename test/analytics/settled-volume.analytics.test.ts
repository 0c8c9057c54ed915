import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createApiClient, makeBurner, newBurner, payCheckout } from "../../src/client/index.ts";
import {
  allEvents,
  createMerchantClient,
  createPaymentSession,
  type MerchantEvent,
  pinDestination,
} from "../../src/client/merchant/index.ts";
import { waitFor } from "../support/actor-host.ts";
import { fund } from "../support/delegate.ts";
import { merchantStack } from "../support/merchant-stack.ts";

// The analytics example (examples/analytics/) against the service's own account of the same money:
// a new merchant's checkouts are paid and settled on the local chains, then Spark reads
// session.events and sums the settled volume per merchant per day; the merchant's event list
// (GET /v1/events, each payment.* event's settled_amount) must give the same totals. Spark and its
// Maven download take minutes, so this runs by hand: `npm run test:analytics` (docs/ANALYTICS.md).

const T = 600_000;
const OPERATOR_SECRET = `operator-${"a".repeat(40)}`;
const stack = merchantStack(OPERATOR_SECRET, T);
const run = promisify(execFile);

/** Per UTC day, the settled USDC of the merchant's payment.* events that carry one. */
function volumeOfEvents(events: MerchantEvent[]): Map<string, { volume: bigint; sessions: number }> {
  const days = new Map<string, { volume: bigint; sessions: number }>();
  for (const e of events) {
    const settled = (e.data as { settled_amount?: string | null }).settled_amount;
    if (!e.type.startsWith("payment.") || settled === null || settled === undefined) continue;
    const day = new Date(e.created * 1000).toISOString().slice(0, 10);
    const was = days.get(day) ?? { volume: 0n, sessions: 0 };
    days.set(day, { volume: was.volume + BigInt(settled), sessions: was.sessions + 1 });
  }
  return days;
}

describe("examples/analytics: settled volume per merchant per day, by Spark from session.events", () => {
  it(
    "equals the totals of the merchant's own event list",
    async () => {
      const m = await stack.createMerchant("Analytics Shop");
      const client = createMerchantClient({ baseUrl: stack.service.url, secretKey: m.secretKey });
      await pinDestination(client, {
        sourceChainId: stack.A.chain.chainId,
        destAddress: makeBurner().address.toLowerCase(),
        destChainId: stack.B.chain.chainId,
      });
      // Three payments of different sizes, each settled (swept on A, bridged to B).
      const amounts = [10_000_000n, 2_500_000n, 7_250_000n];
      for (const amount of amounts) {
        const session = await createPaymentSession(client, { amount });
        const payer = createApiClient({
          baseUrl: stack.service.url,
          checkout: { publishableKey: m.publishableKey, clientSecret: session.client_secret },
        });
        const burner = await newBurner(stack.A.chain);
        const { settled } = await payCheckout(payer, {
          id: session.id,
          burner,
          usdc: { [stack.A.chain.chainId]: stack.A.chain.usdc },
          onRegistered: () => fund(stack.A, burner.address, stack.A.chain.usdc, amount),
          detectionTimeout: 60_000,
          settlementTimeout: 120_000,
        });
        expect(settled).toMatchObject({ status: "swept" });
      }
      let events: MerchantEvent[] = [];
      await waitFor(
        "a settled event per payment in the event list",
        async () => {
          events = [];
          for await (const e of allEvents(client)) events.push(e);
          return [...volumeOfEvents(events).values()].reduce((n, d) => n + d.sessions, 0) === amounts.length
            ? true
            : undefined;
        },
        120_000,
      );
      const expected = volumeOfEvents(events);

      const out = join(await mkdtemp(join(tmpdir(), "analytics-")), "settled-volume.jsonl");
      await run("bash", ["examples/analytics/run.sh", out], { timeout: T, maxBuffer: 64 << 20 });
      const rows = (await readFile(out, "utf8"))
        .split("\n")
        .filter((l) => l !== "")
        .map(
          (l) =>
            JSON.parse(l) as { merchant_id: string; day: string; settled_volume: string; sessions: number },
        )
        .filter((r) => r.merchant_id === m.id);
      expect(
        new Map(rows.map((r) => [r.day, { volume: BigInt(r.settled_volume), sessions: r.sessions }])),
      ).toEqual(expected);
      // Not vacuous: the payments settled, less the service's fee, and something was summed.
      const total = rows.reduce((n, r) => n + BigInt(r.settled_volume), 0n);
      expect(total).toBeGreaterThan(0n);
      expect(total).toBeLessThanOrEqual(amounts.reduce((a, b) => a + b, 0n));
    },
    T,
  );
});
