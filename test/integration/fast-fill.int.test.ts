// The fast fill's payout step on the real stack: FastFill executor commands in, results out, the
// relayer's USDC on the local destination anvil paying the destination. Balances are read on chain;
// the reservation is read in Cassandra (the executor's keyspace).
import { randomUUID } from "node:crypto";
import type { Address } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import type { ExecutorCommand } from "../../src/records/executor-commands.ts";
import { fillInventory } from "../../src/store/fill-inventory.ts";
import { type Ctx, fund, tokenBalance, usdc } from "../support/delegate.ts";
import { type executorBus, executorTestBed } from "../support/executor.ts";

const T = 90_000;
const randomAddress = () => privateKeyToAddress(generatePrivateKey());

const { bed, executor } = executorTestBed();
let dst: Ctx;
let bus: ReturnType<typeof executorBus>;
let relayer: Address;
beforeAll(async () => {
  ({ dst, bus } = bed);
  relayer = dst.chain.relayer.address;
  // A short wait for inventory keeps the refused case quick; the waiting case funds within it.
  await executor({ FILL_RETRY_MS: "500", FILL_MAX_WAIT_MS: "6000", FILL_INVENTORY_FLOOR: "0" });
}, 240_000);

function fillCommand(to: Address, amount: bigint): ExecutorCommand {
  const sessionId = randomUUID();
  return {
    commandId: `${sessionId}:fill`,
    issuedAt: Date.now(),
    sessionId,
    chainId: dst.chain.chainId,
    command: {
      type: "FastFill",
      to,
      amount,
      sourceChainId: 792703810,
      sourceTx: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW",
    },
  };
}

const reservationOf = (cmd: ExecutorCommand) =>
  fillInventory(bed.service.cassandra).find(cmd.chainId, cmd.commandId);

describe("FastFill", () => {
  it(
    "pays the destination from the relayer's USDC exactly once: the amount moves, the reservation is closed as paid, a re-sent command pays nothing more",
    async () => {
      await fund(dst, relayer, dst.chain.usdc, usdc(30));
      const to = randomAddress();
      const before = await tokenBalance(dst, relayer);
      const cmd = fillCommand(to, usdc(24.8));
      await bus.send(cmd);

      const relayed = await bus.waitFor(cmd.commandId, "BridgeRelayed");
      expect(relayed).toMatchObject({ destChainId: dst.chain.chainId, mintedAmount: usdc(24.8) });
      expect((await dst.client.getTransactionReceipt({ hash: relayed.txHash })).status).toBe("success");
      expect(await tokenBalance(dst, to)).toBe(usdc(24.8));
      expect(before - (await tokenBalance(dst, relayer))).toBe(usdc(24.8));
      expect(await reservationOf(cmd)).toMatchObject({
        state: "paid",
        txHash: relayed.txHash,
        amount: usdc(24.8),
      });
      // Neither the payout's hash (it is not the session's sweep) nor a failure was reported.
      expect(bus.of(cmd.commandId).map((r) => r.type)).toEqual(["BridgeRelayed"]);

      // Re-delivered (an executor that crashed before committing it): the same payout, reported again.
      await bus.send(cmd);
      await bus.waitFor(cmd.commandId, "BridgeRelayed", (r) => r !== relayed);
      expect(
        bus
          .of(cmd.commandId)
          .filter((r) => r.type === "BridgeRelayed")
          .map((r) => r.txHash),
      ).toEqual([relayed.txHash, relayed.txHash]);
      expect(await tokenBalance(dst, to)).toBe(usdc(24.8));
      expect(before - (await tokenBalance(dst, relayer))).toBe(usdc(24.8));
    },
    T,
  );

  it(
    "refuses a fill the inventory does not cover: it waits, then fails with the shortfall; nothing moves and nothing stays reserved",
    async () => {
      const to = randomAddress();
      const balance = await tokenBalance(dst, relayer);
      const cmd = fillCommand(to, balance + 1n);
      await bus.send(cmd);

      const waiting = await bus.waitFor(cmd.commandId, "ExecutionFailed", (r) => r.retryable);
      expect(waiting.errorMessage).toMatch(
        /^fast fill waits for inventory: needs \d+ USDC base units on chain 31338/,
      );
      const failed = await bus.waitFor(cmd.commandId, "ExecutionFailed", (r) => !r.retryable, 30_000);
      expect(failed.errorMessage).toMatch(
        /^fast fill refused: the relayer's USDC inventory is short: needs /,
      );
      expect(failed.errorMessage).toContain(`needs ${balance + 1n} USDC base units`);
      expect(failed.txHash).toBeNull();
      expect(bus.of(cmd.commandId).map((r) => r.type)).toEqual(["ExecutionFailed", "ExecutionFailed"]);
      expect(await tokenBalance(dst, to)).toBe(0n);
      expect(await tokenBalance(dst, relayer)).toBe(balance);
      expect(await reservationOf(cmd)).toBeNull();
    },
    T,
  );

  it(
    "a fill that waits is paid once the inventory returns within the wait",
    async () => {
      const to = randomAddress();
      const amount = (await tokenBalance(dst, relayer)) + usdc(1);
      const cmd = fillCommand(to, amount);
      await bus.send(cmd);

      await bus.waitFor(cmd.commandId, "ExecutionFailed", (r) => r.retryable);
      await fund(dst, relayer, dst.chain.usdc, usdc(5));
      const relayed = await bus.waitFor(cmd.commandId, "BridgeRelayed");
      expect(relayed.mintedAmount).toBe(amount);
      expect(await tokenBalance(dst, to)).toBe(amount);
      expect(bus.of(cmd.commandId).map((r) => r.type)).toEqual(["ExecutionFailed", "BridgeRelayed"]);
      expect(await reservationOf(cmd)).toMatchObject({ state: "paid" });
    },
    T,
  );
});
