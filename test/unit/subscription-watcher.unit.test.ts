import { keccak256, toHex } from "viem";
import { describe, expect, it } from "vitest";
import { cancelCommand } from "../../src/chains/evm/subscriptions/subscription-watcher.ts";
import { subscriptionIdFromDigest } from "../../src/chains/evm/subscriptions/subscriptions.ts";

describe("a mirrored on-chain cancel", () => {
  const digest = keccak256(toHex("mandate"));
  const tx = keccak256(toHex("tx"));

  it("is a chain cancel of the subscription whose id derives from the log's digest", () => {
    expect(cancelCommand(31337, digest, tx, 3, 1_800_000_000_000)).toEqual({
      type: "CancelSubscription",
      data: {
        subscriptionId: subscriptionIdFromDigest(digest),
        source: "chain",
        merchantId: null,
        signature: null,
        txHash: tx,
      },
      metadata: { commandId: `chain-cancel:31337:${tx}:3`, issuedAt: 1_800_000_000_000, replyTo: null },
    });
  });

  it("is named by the log, so mirroring a block twice sends the same command id", () => {
    const a = cancelCommand(31337, digest, tx, 3, 1);
    const b = cancelCommand(31337, digest, tx, 3, 2);
    expect(a.metadata.commandId).toBe(b.metadata.commandId);
    expect(cancelCommand(31338, digest, tx, 3, 1).metadata.commandId).not.toBe(a.metadata.commandId);
  });
});
