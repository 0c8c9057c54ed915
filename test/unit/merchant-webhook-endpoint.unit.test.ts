import { describe, expect, it } from "vitest";
import { foldEvent } from "../../src/domain/decider.ts";
import { merchantDecider } from "../../src/domain/merchant/decider.ts";
import type { MerchantCommand, MerchantState } from "../../src/domain/merchant/types.ts";
import { urlPolicyFor } from "../../src/webhooks/address-guard.ts";
import { codecs } from "../support/codecs.ts";

const merchantId = "mer_0123456789abcdef01234567";
let seq = 0;
const command = (type: string, data: object): MerchantCommand =>
  ({
    type,
    data: { merchantId, ...data },
    metadata: { commandId: `c${++seq}`, issuedAt: 1_700_000_000_000 + seq, replyTo: null },
  }) as MerchantCommand;

function apply(state: MerchantState, c: MerchantCommand) {
  const d = merchantDecider.decide(c, state);
  if (!d.ok) throw new Error(d.rejection.code);
  return { events: d.events, state: d.events.reduce((s, e) => foldEvent(merchantDecider, s, e), state) };
}

const created = apply(
  null,
  command("CreateMerchant", { name: "Shop", email: "a@shop.test", keys: [] }),
).state;
const set = { endpointId: "we_1", url: "https://hooks.shop.test/x", secret: "whsec_abc" };

describe("merchant webhook endpoint", () => {
  it("carries the secret into the event (the projection needs it) but keeps it out of the state", () => {
    const { events, state } = apply(created, command("SetWebhookEndpoint", set));
    expect(events.map((e) => [e.type, e.data])).toEqual([["WebhookEndpointSet", set]]);
    expect(state?.webhookEndpoint).toEqual({ endpointId: "we_1", url: set.url });
    expect(JSON.stringify(state)).not.toContain("whsec_");
  });

  it("removes a set endpoint once; removing none is accepted with no event", () => {
    const withEndpoint = apply(created, command("SetWebhookEndpoint", set)).state;
    const removed = apply(withEndpoint, command("RemoveWebhookEndpoint", {}));
    expect(removed.events.map((e) => e.type)).toEqual(["WebhookEndpointRemoved"]);
    expect(removed.state?.webhookEndpoint).toBeNull();
    expect(apply(removed.state, command("RemoveWebhookEndpoint", {})).events).toEqual([]);
  });

  it("round-trips the secret through the Avro records, and a null secret (an old record's)", () => {
    for (const secret of ["whsec_abc", null]) {
      const c = command("SetWebhookEndpoint", { ...set, secret });
      expect(codecs.merchantCommand.decode(codecs.merchantCommand.encode(c))).toEqual(c);
      const [event] = apply(created, c).events;
      expect(codecs.merchantEvent.decode(codecs.merchantEvent.encode(event as never))).toEqual(event);
    }
  });

  it("allows http://localhost only in development mode with WEBHOOK_ALLOW_INSECURE", () => {
    const policy = (MERCHANT_MODE: string, WEBHOOK_ALLOW_INSECURE: boolean) =>
      urlPolicyFor({ MERCHANT_MODE, WEBHOOK_ALLOW_INSECURE }).allowInsecureLocalhost;
    expect(policy("development", true)).toBe(true);
    expect(policy("development", false)).toBe(false);
    expect(policy("production", true)).toBe(false);
  });
});
