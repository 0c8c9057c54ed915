import { describe, expect, it } from "vitest";
import { foldEvent } from "../../src/domain/decider.ts";
import { merchantDecider } from "../../src/domain/merchant/decider.ts";
import type { MerchantCommand, MerchantEvent, MerchantState } from "../../src/domain/merchant/types.ts";
import { issueKey } from "../../src/gateway/merchant-keys.ts";

const ID = "mer_0123456789abcdef01234567";
const replyTo = { gatewayId: "g1", correlationId: "c1" };
let seq = 0;
type Body = MerchantCommand extends infer C
  ? C extends { type: infer T; data: infer D }
    ? { type: T; data: Omit<D, "merchantId"> }
    : never
  : never;
const command = (body: Body, commandId = `cmd-${++seq}`): MerchantCommand =>
  ({
    type: body.type,
    data: { merchantId: ID, ...body.data },
    metadata: { commandId, issuedAt: 1_700_000_000_000 + seq, replyTo },
  }) as MerchantCommand;

/** Decides and folds the accepted events: the host's path without Kafka. */
function run(state: MerchantState, c: MerchantCommand) {
  const decision = merchantDecider.decide(c, state);
  const events: MerchantEvent[] = decision.ok ? decision.events : [];
  return { decision, events, state: events.reduce((s, e) => foldEvent(merchantDecider, s, e), state) };
}

const pk = issueKey("publishable", "test");
const sk = issueKey("secret", "test");
const create = () =>
  command({
    type: "CreateMerchant",
    data: { name: "Shop", email: "a@shop.test", keys: [pk.issued, sk.issued] },
  });

describe("merchant decider", () => {
  it("creates a merchant with its keys, versions 1..3, and replies accepted", () => {
    const { decision, events, state } = run(null, create());
    expect(events.map((e) => [e.type, e.metadata.version])).toEqual([
      ["MerchantCreated", 1],
      ["KeyIssued", 2],
      ["KeyIssued", 3],
    ]);
    expect(decision.outbox).toEqual([{ type: "Reply", data: { replyTo, rejection: null } }]);
    expect(state?.keys.map((k) => [k.kind, k.revokedAt])).toEqual([
      ["publishable", null],
      ["secret", null],
    ]);
    // No key text but the publishable one ever reaches the journal.
    expect(JSON.stringify(events)).not.toContain(sk.key);
  });

  it("refuses a second creation of the same merchant (duplicate e-mail) with a generic message", () => {
    const created = run(null, create()).state;
    const { decision } = run(created, create());
    expect(decision).toMatchObject({
      ok: false,
      rejection: { code: "merchant_exists", message: "conflict" },
    });
    expect(decision.outbox).toEqual([
      { type: "Reply", data: { replyTo, rejection: decision.ok ? null : decision.rejection } },
    ]);
  });

  it("accepts a retried command id again with no new events", () => {
    const c = create();
    const created = run(null, c).state;
    expect(run(created, c)).toMatchObject({ decision: { ok: true }, events: [] });
  });

  it("rotates: revokes every active key of the new key's kind, keeps the other kind", () => {
    const created = run(null, create()).state;
    const next = issueKey("secret", "test");
    const { events, state } = run(
      created,
      command({ type: "RotateKey", data: { key: next.issued, replaces: null } }),
    );
    expect(events.map((e) => e.type)).toEqual(["KeyRevoked", "KeyIssued"]);
    expect(events[0]?.data).toEqual({ keyId: sk.issued.keyId, hash: sk.issued.hash });
    const active = state?.keys.filter((k) => k.revokedAt === null).map((k) => k.keyId);
    expect(active).toEqual([pk.issued.keyId, next.issued.keyId]);
  });

  it("refuses a roll that replaces a key no longer active: two concurrent rolls issue one key", () => {
    const created = run(null, create()).state;
    const roll = () =>
      command({
        type: "RotateKey",
        data: { key: issueKey("secret", "test").issued, replaces: sk.issued.keyId },
      });
    const first = run(created, roll());
    expect(first.events.map((e) => e.type)).toEqual(["KeyRevoked", "KeyIssued"]);
    expect(run(first.state, roll()).decision).toMatchObject({
      ok: false,
      rejection: { code: "key_revoked" },
    });
  });

  it("revokes a key once; revoking it again changes nothing; an unknown key is key_not_found", () => {
    const created = run(null, create()).state;
    const revoked = run(created, command({ type: "RevokeKey", data: { keyId: sk.issued.keyId } }));
    expect(revoked.events.map((e) => e.type)).toEqual(["KeyRevoked"]);
    expect(
      run(revoked.state, command({ type: "RevokeKey", data: { keyId: sk.issued.keyId } })).events,
    ).toEqual([]);
    const unknown = run(revoked.state, command({ type: "RevokeKey", data: { keyId: "key_nope" } })).decision;
    expect(unknown).toMatchObject({ ok: false, rejection: { code: "key_not_found" } });
  });

  it("refuses every command but creation for a merchant that does not exist", () => {
    for (const body of [
      { type: "IssueKeys", data: { keys: [sk.issued] } },
      { type: "RotateKey", data: { key: sk.issued, replaces: null } },
      { type: "RevokeKey", data: { keyId: "k" } },
      { type: "RemoveWebhookEndpoint", data: {} },
    ] as Body[]) {
      expect(run(null, command(body)).decision).toMatchObject({
        ok: false,
        rejection: { code: "merchant_not_found" },
      });
    }
  });

  it("sends no reply when nobody waits", () => {
    const c = create();
    c.metadata.replyTo = null;
    expect(merchantDecider.decide(c, null).outbox).toEqual([]);
  });

  it("folds an event at or below the version as applied (restore overlap)", () => {
    const { events, state } = run(null, create());
    const again = events.reduce((s, e) => foldEvent(merchantDecider, s, e), state);
    expect(again).toBe(state);
  });
});

describe("checkout settings", () => {
  const dest = "0x00000000000000000000000000000000000000d0";
  it("a pin per source chain: a new pin of the same chain replaces it, another chain's is added", () => {
    let state = run(null, create()).state;
    const pin = (sourceChainId: number, destAddress: string) =>
      command({ type: "PinDestination", data: { sourceChainId, destAddress, destChainId: 31338 } });
    state = run(state, pin(31337, dest)).state;
    state = run(state, pin(8453, dest)).state;
    const replaced = run(state, pin(31337, "0x00000000000000000000000000000000000000d1"));
    expect(replaced.events.map((e) => e.type)).toEqual(["DestinationPinned"]);
    expect(replaced.state?.destinations).toEqual([
      { sourceChainId: 8453, destAddress: dest, destChainId: 31338 },
      { sourceChainId: 31337, destAddress: "0x00000000000000000000000000000000000000d1", destChainId: 31338 },
    ]);
  });

  it("the app fee is set, and set again; before the merchant exists nothing is", () => {
    const sink = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
    const fee = command({ type: "SetAppFee", data: { bps: 150, recipient: dest, recipientSol: sink } });
    expect(run(null, fee).decision).toMatchObject({ ok: false, rejection: { code: "merchant_not_found" } });
    const state = run(run(null, create()).state, fee).state;
    expect(state?.appFee).toEqual({ bps: 150, recipient: dest, recipientSol: sink });
  });

  it("settings are journaled whole, on and off again; before the merchant exists nothing is", () => {
    const set = (on: boolean) => command({ type: "SetSettings", data: { p2pPinnedDestinationsOnly: on } });
    expect(run(null, set(true)).decision).toMatchObject({
      ok: false,
      rejection: { code: "merchant_not_found" },
    });
    const on = run(run(null, create()).state, set(true));
    expect(on.events).toMatchObject([
      {
        type: "SettingsSet",
        data: { p2pPinnedDestinationsOnly: true },
        metadata: { merchantId: ID, version: 4 },
      },
    ]);
    expect(on.decision.outbox).toEqual([{ type: "Reply", data: { replyTo, rejection: null } }]);
    expect(on.state?.settings).toEqual({ p2pPinnedDestinationsOnly: true });
    expect(run(on.state, set(false)).state?.settings).toEqual({ p2pPinnedDestinationsOnly: false });
  });

  it("the stealth meta-address is journaled whole and a new one replaces it; before the merchant exists nothing is", () => {
    const meta = (b: string, sol: string | null) =>
      command({
        type: "SetStealthMeta",
        data: {
          spendPubkey: `0x02${b.repeat(32)}`,
          viewPubkey: `0x03${b.repeat(32)}`,
          solSpendPubkey: sol,
          solViewPubkey: sol,
        },
      });
    expect(run(null, meta("aa", null)).decision).toMatchObject({
      ok: false,
      rejection: { code: "merchant_not_found" },
    });
    const first = run(run(null, create()).state, meta("aa", null));
    expect(first.events).toMatchObject([
      { type: "StealthMetaSet", data: { spendPubkey: `0x02${"aa".repeat(32)}` }, metadata: { version: 4 } },
    ]);
    const sol = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM";
    const second = run(first.state, meta("bb", sol));
    expect(second.state?.stealthMeta).toEqual({
      spendPubkey: `0x02${"bb".repeat(32)}`,
      viewPubkey: `0x03${"bb".repeat(32)}`,
      solSpendPubkey: sol,
      solViewPubkey: sol,
    });
  });
});
