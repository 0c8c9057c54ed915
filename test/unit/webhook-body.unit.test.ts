import { describe, expect, it } from "vitest";
import type {
  PinnedDestination,
  SessionInput,
  SessionState,
  WebhookMessage,
} from "../../src/domain/index.ts";
import { hasPinnedDestination } from "../../src/domain/webhooks.ts";
import { transferCommand } from "../../src/entities/session.ts";
import { createSessionCommand, observedTransfer } from "../support/driven-service.ts";
import { testSessionDecider as sessionDecider } from "../support/money.ts";

// What a payment.* body says about where the money goes: a stranger holding a merchant's pk_ can make
// a P2P session of that merchant's paying their own address, so the body names the flow, the
// destination and whether it is one the merchant pinned (issue 16 item 3).

const ID = "0c7e3f1a-2b4d-4e6f-8a9b-1c2d3e4f5a6b";
const MERCHANT = "mer_0123456789abcdef01234567";
const SOURCE = 31_337;
const DEST = 31_338;
const MINE = "0x000000000000000000000000000000000000d0d0";
const STRANGER = "0x0000000000000000000000000000000000005eed";
const PIN: PinnedDestination = { sourceChainId: SOURCE, destAddress: MINE, destChainId: DEST };

function detectedHook(data: Parameters<typeof createSessionCommand>[1]): WebhookMessage["data"]["body"] {
  let state: SessionState = null;
  const inputs: SessionInput[] = [
    createSessionCommand(ID, { merchantId: MERCHANT, ...data }),
    transferCommand(observedTransfer(ID, { chainId: SOURCE, amount: 5_000_000n })),
  ];
  let last: ReturnType<typeof sessionDecider.decide> | null = null;
  for (const input of inputs) {
    last = sessionDecider.decide(input, state);
    if (last.ok) state = last.events.reduce<SessionState>(sessionDecider.evolve, state);
  }
  const hook = last?.outbox.find((m) => m.type === "Webhook");
  if (hook?.type !== "Webhook") throw new Error("no webhook was sent");
  return hook.data.body;
}

describe("a payment.* body names the flow and the destination", () => {
  it("a stranger's pk-tagged P2P session paying their own address: dest_pinned false", () => {
    const body = detectedHook({ destAddress: STRANGER, destChainId: DEST, pinnedDestinations: [PIN] });
    expect(body).toEqual({
      session_id: ID,
      event_type: "payment.detected",
      amount: "5000000",
      settled_amount: null,
      overpaid_amount: null,
      flow: "p2p_request",
      dest_address: STRANGER,
      dest_chain_id: DEST,
      dest_pinned: false,
    });
  });

  it("a P2P session to the merchant's pinned address (any letter case): dest_pinned true", () => {
    const upper = `0x${MINE.slice(2).toUpperCase()}`;
    const body = detectedHook({ flow: "p2p_send", destAddress: upper, pinnedDestinations: [PIN] });
    expect(body).toMatchObject({ flow: "p2p_send", dest_address: upper, dest_pinned: true });
  });

  it("the pinned address on another chain than pinned is not pinned", () => {
    const body = detectedHook({ destAddress: MINE, destChainId: SOURCE, pinnedDestinations: [PIN] });
    expect(body).toMatchObject({ dest_address: MINE, dest_chain_id: SOURCE, dest_pinned: false });
  });

  it("checkout: the destination is the pin for the deposit's chain, so dest_pinned true", () => {
    const body = detectedHook({
      flow: "checkout",
      destAddress: null,
      destChainId: null,
      pinnedDestinations: [PIN],
      expectedAmount: 5_000_000n,
    });
    expect(body).toMatchObject({
      flow: "checkout",
      dest_address: MINE,
      dest_chain_id: DEST,
      dest_pinned: true,
    });
  });

  it("checkout paid on a chain with no pin: no destination, not pinned", () => {
    const elsewhere = { ...PIN, sourceChainId: DEST };
    const body = detectedHook({
      flow: "checkout",
      destAddress: null,
      destChainId: null,
      pinnedDestinations: [elsewhere],
    });
    expect(body).toMatchObject({ dest_address: null, dest_chain_id: null, dest_pinned: false });
  });
});

describe("hasPinnedDestination", () => {
  it("needs both the address and the chain of one pin; none pinned is false", () => {
    const s = (destAddress: string | null, destChainId: number | null, pins: PinnedDestination[]) =>
      hasPinnedDestination({ destAddress, destChainId, pinnedDestinations: pins });
    expect(s(MINE, DEST, [PIN])).toBe(true);
    expect(s(MINE, DEST, [])).toBe(false);
    expect(s(STRANGER, DEST, [PIN])).toBe(false);
    expect(s(MINE, SOURCE, [PIN])).toBe(false);
    expect(s(null, null, [PIN])).toBe(false);
    // Pinned for another source chain: still one of the merchant's destinations.
    expect(s(MINE, DEST, [{ ...PIN, sourceChainId: 1 }])).toBe(true);
  });
});
