import { describe, expect, it } from "vitest";
import type { DestinationPin } from "../../src/domain/merchant/types.ts";
import { widgetPolicy } from "../../src/gateway/widget-policy.ts";

// The gateway's check of a pk-tagged POST /sessions against the merchant's pinned-only setting
// (issue 16 item 3): the pins come back for the session to carry; a destination that is not the
// pin of the authorization's chain is 403 destination_not_pinned while the setting is on.

const MERCHANT = "mer_0123456789abcdef01234567";
const PINNED: `0x${string}` = "0x000000000000000000000000000000000000d0d0";
const STRANGER: `0x${string}` = "0x0000000000000000000000000000000000005eed";
const PIN: DestinationPin = { sourceChainId: 31_337, destAddress: PINNED, destChainId: 31_338 };

const settings = (on: boolean, pins: DestinationPin[] = [PIN]) => ({
  destinations: async () => pins,
  settings: async () => ({ p2pPinnedDestinationsOnly: on }),
});
const body = (to: `0x${string}`, chain = 31_338, authChain = 31_337) => ({
  eip7702_auth: {
    address: PINNED as `0x${string}`,
    chainId: authChain,
    nonce: 0,
    r: "0x01" as `0x${string}`,
    s: "0x02" as `0x${string}`,
    yParity: 0,
  },
  destination_address: to,
  destination_chain: chain,
});
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: { code?: string; status?: number; message?: string }) => [e.code, e.status, e.message],
  );

describe("widgetPolicy", () => {
  it("setting off: any destination, and the merchant's pins for the session", async () => {
    expect(await widgetPolicy(settings(false), MERCHANT, body(STRANGER))).toEqual({
      pinnedDestinations: [PIN],
    });
  });

  it("setting on: the pin of the authorization's chain passes, in any letter case", async () => {
    const upper: `0x${string}` = `0x${PINNED.slice(2).toUpperCase()}`;
    expect(await widgetPolicy(settings(true), MERCHANT, body(upper))).toEqual({ pinnedDestinations: [PIN] });
  });

  it("setting on: another address, another chain, no pin for the chain, or chain 0 is 403", async () => {
    const cases = [body(STRANGER), body(PINNED, 31_337), body(PINNED, 31_338, 8453), body(PINNED, 31_338, 0)];
    for (const c of cases) {
      const [code, status, message] = (await refusal(widgetPolicy(settings(true), MERCHANT, c))) ?? [];
      expect([code, status]).toEqual(["destination_not_pinned", 403]);
      expect(message).toMatch(/pinned/);
    }
    expect(await refusal(widgetPolicy(settings(true, []), MERCHANT, body(PINNED)))).toEqual([
      "destination_not_pinned",
      403,
      expect.stringMatching(/pinned none for chain 31337/),
    ]);
  });
});
