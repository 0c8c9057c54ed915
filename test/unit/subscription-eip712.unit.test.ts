import { keccak256, toHex, verifyTypedData } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  type MandateMessage,
  mandateDigest,
  mandateTypedData,
  subscriptionIdFromDigest,
} from "../../src/chains/evm/subscriptions/subscriptions.ts";

const MANAGER = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
const payer = privateKeyToAccount(generatePrivateKey());
const mandate: MandateMessage = {
  payer: payer.address,
  token: "0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
  amount: 10_000_000n,
  period: 60n,
  start: 1_800_000_000n,
  merchant: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
  appFeeBps: 0,
  appFeeRecipient: "0x0000000000000000000000000000000000000000",
  salt: keccak256(toHex("salt")),
};

describe("subscriptionIdFromDigest", () => {
  it("is an RFC 9562 version 8 UUID made of the digest's first 16 bytes", () => {
    const digest = keccak256(toHex("a mandate"));
    const id = subscriptionIdFromDigest(digest);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(id.replaceAll("-", "").slice(0, 12)).toBe(digest.slice(2, 14));
    expect(subscriptionIdFromDigest(digest)).toBe(id);
  });

  it("gives different mandates different ids", () => {
    const a = subscriptionIdFromDigest(mandateDigest(31337, MANAGER, mandate));
    const b = subscriptionIdFromDigest(mandateDigest(31337, MANAGER, { ...mandate, amount: 10_000_001n }));
    const c = subscriptionIdFromDigest(mandateDigest(31338, MANAGER, mandate));
    expect(new Set([a, b, c]).size).toBe(3);
  });

  it("refuses what is not a 32-byte hex digest", () => {
    expect(() => subscriptionIdFromDigest("0x1234")).toThrow(/not a 32-byte digest/);
  });
});

describe("mandateTypedData", () => {
  it("verifies the payer's signature and no other mandate", async () => {
    const signature = await payer.signTypedData(mandateTypedData(31337, MANAGER, mandate));
    const verify = (m: MandateMessage) =>
      verifyTypedData({ ...mandateTypedData(31337, MANAGER, m), address: payer.address, signature });
    expect(await verify(mandate)).toBe(true);
    expect(await verify({ ...mandate, merchant: payer.address })).toBe(false);
  });
});
