import { describe, expect, it } from "vitest";
import { setupMissing } from "../../src/domain/merchant/readiness.ts";
import type { DestinationPin } from "../../src/domain/merchant/types.ts";
import type { MerchantAdmin } from "../../src/gateway/admin/merchant-admin.ts";
import { createGateway } from "../../src/gateway/app.ts";
import { createGuards } from "../../src/gateway/auth.ts";
import { createCheckoutSessions } from "../../src/gateway/checkout.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";
import type { KeyByHash } from "../../src/store/merchants.ts";
import { CHAIN_ID, memoryService, START_MS, testConfig } from "../support/memory-gateway.ts";

// Issue 28: nothing is created that a payer could start but never complete. The rule is pure; the
// checkout route applies it to the merchant's pins as they are now (links: payment-links.unit.test.ts).

describe("setupMissing", () => {
  it("names each thing missing, and nothing once the merchant can be paid", () => {
    expect(setupMissing({ pinnedChainIds: [], payableChainIds: [1, 2] })).toBe(
      "the merchant cannot be paid yet: no destination is pinned (PUT /v1/destinations)",
    );
    expect(setupMissing({ pinnedChainIds: [3], payableChainIds: [1, 2] })).toMatch(
      /no destination is pinned for a chain it can be paid on \(1, 2;/,
    );
    expect(setupMissing({ pinnedChainIds: [], payableChainIds: [1], publishableKey: false })).toMatch(
      /no destination is pinned .*; no publishable key is active/,
    );
    expect(setupMissing({ pinnedChainIds: [2], payableChainIds: [1, 2], publishableKey: true })).toBeNull();
    expect(setupMissing({ pinnedChainIds: [2], payableChainIds: [2] })).toBeNull();
  });
});

describe("POST /v1/payment_sessions before the merchant is set up", () => {
  const sk = issueKey("secret", "test");
  const row: KeyByHash = { ...sk.issued, merchantId: "mer_a", createdAt: 1, revokedAt: null };
  const OTHER_CHAIN = 999;

  async function gateway(pins: DestinationPin[]) {
    const service = memoryService();
    const settings = {
      destinations: async () => pins,
      appFee: async () => ({ bps: 0, recipient: `0x${"0".repeat(40)}` as const, recipientSol: null }),
      stealthMeta: async () => null,
    };
    const app = await createGateway({
      config: testConfig({ MERCHANT_MODE: "development", RATE_LIMIT_BURST: "1000" }),
      commands: service.commands,
      sessions: service.sessions,
      live: service.live,
      health: service.health,
      now: () => START_MS,
      merchants: {
        admin: {} as MerchantAdmin,
        guards: createGuards({
          keys: { keyByHash: async (h) => (h === row.hash ? row : null) },
          mode: "test",
        }),
        checkout: {
          sessions: createCheckoutSessions({
            commands: service.commands,
            settings,
            chains: {
              burnerChainIds: [CHAIN_ID],
              stealthSchemeOf: () => "erc5564-1",
              stealthDestinations: () => [],
            },
            mode: "test",
            ttlSeconds: 600,
            newId: () => crypto.randomUUID(),
            now: () => START_MS,
          }),
          settings: settings as never,
          resources: async () => null,
          mode: "test",
        },
      },
    });
    return { app, sent: service.sent };
  }
  const create = (app: Awaited<ReturnType<typeof gateway>>["app"]) =>
    app.inject({
      method: "POST",
      url: "/v1/payment_sessions",
      headers: { authorization: `Bearer ${sk.key}` },
      payload: { amount: "1000000" },
    });

  it("no pin, or a pin only for a chain it cannot be paid on: 409 merchant_not_ready, no command sent", async () => {
    for (const pins of [[], [{ sourceChainId: OTHER_CHAIN, destAddress: "0xd", destChainId: OTHER_CHAIN }]]) {
      const { app, sent } = await gateway(pins);
      const res = await create(app);
      expect(res.statusCode).toBe(409);
      expect(res.json().error).toMatch(/^the merchant cannot be paid yet: no destination is pinned/);
      expect(sent).toEqual([]);
    }
  });

  it("with a pin for a configured chain: 200, the session created", async () => {
    const dest = `0x${"d".repeat(40)}`;
    const { app, sent } = await gateway([
      { sourceChainId: CHAIN_ID, destAddress: dest, destChainId: CHAIN_ID },
    ]);
    const res = await create(app);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ object: "payment_session", status: "pending", amount: "1000000" });
    expect(sent.map((c) => c.type)).toEqual(["CreateSession"]);
  });
});
