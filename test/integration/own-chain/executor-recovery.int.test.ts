// The executor's recovery rules on real servers and two anvil chains of the file's own (so it runs in the
// off-chain lane, beside the files on the stack's chains): a transaction that is not mined is replaced at
// its nonce with both fee fields raised, and an executor killed with SIGKILL in the middle of a sweep or of
// a bridge relay resumes from its ledger after a restart: each transaction is sent once, each step happens
// once. Block production is stopped on one of its anvils at a time (evm_setIntervalMining 0) to hold a
// transaction in the pool; every test turns it back on, whatever happens.
import { decodeFunctionData, type Hex } from "viem";
import { afterEach, beforeAll, expect, it } from "vitest";
import { burnerDelegateAbi, messageTransmitterV2Abi } from "../../../src/chains/evm/abi.ts";
import { decodeMessage } from "../../../src/chains/evm/settle/cctp-message.ts";
import { waitFor } from "../../support/actor-host.ts";
import { type Ctx, intentFor, newBurner, now, tokenBalance, usdc } from "../../support/delegate.ts";
import {
  type executorBus,
  executorTestBed,
  killHard,
  setMining,
  settleCommand,
} from "../../support/executor.ts";

const T = 240_000;
const { bed, executor, stopExecutors } = executorTestBed({ ownChains: true });
let src: Ctx;
let dst: Ctx;
let bus: ReturnType<typeof executorBus>;
beforeAll(() => {
  ({ src, dst, bus } = bed);
});
afterEach(async () => {
  await setMining(src, true);
  await setMining(dst, true);
  await stopExecutors();
});

/** The ledger rows of one step: (nonce, tx hash, state). */
async function ledgerRows(stepKey: string) {
  const rs = await bed.service.cassandra.execute(
    "SELECT nonce, tx_hash, hashes, state FROM executor_ledger WHERE step_key = ?",
    [stepKey],
    { prepare: true },
  );
  return rs.rows.map((r) => ({
    nonce: BigInt(String(r.nonce)),
    txHash: String(r.tx_hash) as Hex,
    hashes: [...(r.hashes ?? [])] as Hex[],
    state: String(r.state),
  }));
}

const submittedHashes = (commandId: string) =>
  bus.of(commandId).flatMap((r) => (r.type === "TransactionSubmitted" ? [r.txHash] : []));

it(
  "replaces a transaction that is not mined in time at the same nonce, both fees raised by at least 12.5%, and reports each try",
  async () => {
    await executor({
      EXECUTOR_STUCK_AFTER_MS: "1500",
      EXECUTOR_RETRY_BASE_MS: "100",
      EXECUTOR_RETRY_MAX_MS: "200",
    });
    const b = await newBurner(src, usdc(6));
    const intent = intentFor(src, { deadline: (await now(src)) + 3600n, minOut: usdc(5) });
    const cmd = await settleCommand(src, b, intent);
    await setMining(src, false);
    await bus.send(cmd);

    const first = await bus.waitFor(cmd.commandId, "TransactionSubmitted");
    const original = await src.client.getTransaction({ hash: first.txHash as Hex });
    const stuck = await bus.waitFor(cmd.commandId, "ExecutionFailed");
    expect(stuck).toMatchObject({ retryable: true, txHash: first.txHash });
    expect(stuck.errorMessage).toMatch(/not mined after 1500 ms/);
    const second = await bus.waitFor(cmd.commandId, "TransactionSubmitted", (r) => r.txHash !== first.txHash);
    const replacement = await src.client.getTransaction({ hash: second.txHash as Hex });
    expect(replacement.nonce).toBe(original.nonce);
    expect(replacement.type).toBe("eip7702");
    expect((replacement.maxFeePerGas ?? 0n) * 1000n).toBeGreaterThanOrEqual(
      (original.maxFeePerGas ?? 0n) * 1125n,
    );
    expect((replacement.maxPriorityFeePerGas ?? 0n) * 1000n).toBeGreaterThanOrEqual(
      (original.maxPriorityFeePerGas ?? 0n) * 1125n,
    );

    await setMining(src, true);
    const swept = await bus.waitFor(cmd.commandId, "SweepConfirmed");
    // The one mined is the newest replacement; the others can never be (same nonce).
    expect(swept.txHash).toBe(submittedHashes(cmd.commandId).at(-1));
    expect((await src.client.getTransaction({ hash: swept.txHash })).nonce).toBe(original.nonce);
    const rows = await ledgerRows(`${cmd.commandId}/sweep`);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.hashes).toEqual(expect.arrayContaining(submittedHashes(cmd.commandId)));
    expect(await tokenBalance(src, intent.destAddr)).toBe(usdc(6) - (usdc(6) * 80n) / 10_000n);
  },
  T,
);

it(
  "gives up after the configured tries when a transaction stays stuck: retryable failures, a no-op in its place, then a final one",
  async () => {
    await executor({
      EXECUTOR_STUCK_AFTER_MS: "500",
      EXECUTOR_RETRY_BASE_MS: "50",
      EXECUTOR_RETRY_MAX_MS: "100",
      EXECUTOR_MAX_ATTEMPTS: "3",
    });
    const b = await newBurner(src, usdc(2));
    const cmd = await settleCommand(src, b, intentFor(src, { deadline: (await now(src)) + 3600n }));
    await setMining(src, false);
    await bus.send(cmd);
    const final = await bus.waitFor(cmd.commandId, "ExecutionFailed", (r) => !r.retryable);
    expect(final.errorMessage).toMatch(/gave up after 3 tries/);
    const failures = bus.of(cmd.commandId).filter((r) => r.type === "ExecutionFailed");
    expect(failures.map((r) => r.type === "ExecutionFailed" && r.retryable)).toEqual([true, true, false]);
    expect(new Set(submittedHashes(cmd.commandId)).size).toBe(3);

    // Given up means it cannot happen later: the pending sweep was replaced by a no-op at its nonce.
    const [row] = await ledgerRows(`${cmd.commandId}/sweep`);
    expect(submittedHashes(cmd.commandId)).not.toContain(row?.txHash);
    await setMining(src, true);
    const cancel = await src.client.waitForTransactionReceipt({ hash: row?.txHash as Hex });
    expect(cancel.to).toBe(cancel.from);
    expect(await tokenBalance(src, b.burner.address)).toBe(usdc(2));
  },
  T,
);

it(
  "kill -9 in the middle of a sweep, then restart: the recorded transaction is resumed, the sweep happens once",
  async () => {
    const first = await executor({ EXECUTOR_STUCK_AFTER_MS: "60000" });
    const b = await newBurner(src, usdc(8));
    const intent = intentFor(src, { deadline: (await now(src)) + 3600n });
    const cmd = await settleCommand(src, b, intent);
    await setMining(src, false);
    await bus.send(cmd);
    const submitted = await bus.waitFor(cmd.commandId, "TransactionSubmitted");
    killHard(first);

    // Restarted while the transaction still waits in the pool: the ledger's bytes are sent again, nothing is signed.
    await executor({ EXECUTOR_STUCK_AFTER_MS: "60000" });
    await setMining(src, true);
    const swept = await bus.waitFor(cmd.commandId, "SweepConfirmed", () => true, 180_000);
    expect(swept.txHash).toBe(submitted.txHash);
    expect(new Set(submittedHashes(cmd.commandId))).toEqual(new Set([submitted.txHash]));
    expect(await ledgerRows(`${cmd.commandId}/sweep`)).toMatchObject([
      { txHash: submitted.txHash, state: "mined" },
    ]);
    const logs = await src.client.getContractEvents({
      address: b.burner.address,
      abi: burnerDelegateAbi,
      eventName: "Swept",
      args: { salt: intent.salt },
      fromBlock: 0n,
    });
    expect(logs).toHaveLength(1);
    expect(bus.of(cmd.commandId).filter((r) => r.type === "ExecutionFailed")).toEqual([]);
  },
  T,
);

it(
  "kill -9 in the middle of a bridge relay, then restart: one receiveMessage, minted once, the sweep not repeated",
  async () => {
    const first = await executor({ EXECUTOR_STUCK_AFTER_MS: "60000" });
    const b = await newBurner(src, usdc(12));
    const intent = intentFor(src, {
      deadline: (await now(src)) + 3600n,
      destChainId: BigInt(dst.chain.chainId),
    });
    const cmd = await settleCommand(src, b, intent, 0);
    await setMining(dst, false);
    await bus.send(cmd);
    const swept = await bus.waitFor(cmd.commandId, "SweepConfirmed");
    const [relayRow] = await waitFor("the relay's ledger row", async () => {
      const rows = await ledgerRows(`${cmd.commandId}/relay`);
      return rows.length > 0 ? rows : undefined;
    });
    killHard(first);

    await executor({ EXECUTOR_STUCK_AFTER_MS: "60000" });
    await setMining(dst, true);
    const relayed = await bus.waitFor(cmd.commandId, "BridgeRelayed", () => true, 180_000);
    expect(relayed.txHash).toBe(relayRow?.txHash);
    expect(relayed.mintedAmount).toBe(usdc(12));
    expect(await tokenBalance(dst, intent.destAddr)).toBe(usdc(12));
    expect(await ledgerRows(`${cmd.commandId}/relay`)).toHaveLength(1);
    expect(await ledgerRows(`${cmd.commandId}/sweep`)).toMatchObject([{ txHash: swept.txHash }]);

    const receipt = await dst.client.getTransactionReceipt({ hash: relayed.txHash });
    const received = await dst.client.getContractEvents({
      abi: messageTransmitterV2Abi,
      eventName: "MessageReceived",
      args: { nonce: decodeMessage(await messageOf(relayed.txHash)).nonce },
      fromBlock: 0n,
    });
    expect(receipt.status).toBe("success");
    expect(received).toHaveLength(1);
  },
  T,
);

/** The message a receiveMessage transaction carried (its first argument). */
async function messageOf(hash: Hex): Promise<Hex> {
  const tx = await dst.client.getTransaction({ hash });
  const call = decodeFunctionData({ abi: messageTransmitterV2Abi, data: tx.input });
  if (call.functionName !== "receiveMessage") throw new Error(`${hash} is not a receiveMessage`);
  return call.args[0];
}

it(
  "a settle waiting on its bridge relay does not hold up another session's command in the same partition",
  async () => {
    await executor();
    const slow = await newBurner(src, usdc(3));
    const slowCmd = await settleCommand(
      src,
      slow,
      intentFor(src, { deadline: (await now(src)) + 3600n, destChainId: BigInt(dst.chain.chainId) }),
    );
    const fast = await newBurner(src, usdc(3));
    const fastCmd = await settleCommand(src, fast, intentFor(src, { deadline: (await now(src)) + 3600n }));
    await setMining(dst, false);
    await bus.send(slowCmd, 0);
    await bus.waitFor(slowCmd.commandId, "SweepConfirmed");
    await bus.send(fastCmd, 0);
    await bus.waitFor(fastCmd.commandId, "SweepConfirmed");
    expect(bus.of(slowCmd.commandId).some((r) => r.type === "BridgeRelayed")).toBe(false);
    await setMining(dst, true);
    await bus.waitFor(slowCmd.commandId, "BridgeRelayed");
  },
  T,
);

it(
  "the source chain's node unreachable: each try fails as retryable, then the command fails for good; nothing is sent",
  async () => {
    const c = src.chain;
    // Port 9 (discard) refuses connections: the relayer's node is down for this executor.
    const chains = [
      {
        family: "evm",
        name: c.name,
        chainId: c.chainId,
        rpcUrl: "http://127.0.0.1:9",
        delegate: c.delegate,
        usdc: c.usdc,
        relayer: c.relayer,
      },
    ];
    await executor({
      CHAINS: JSON.stringify(chains),
      EXECUTOR_MAX_ATTEMPTS: "2",
      EXECUTOR_RETRY_BASE_MS: "50",
      EXECUTOR_RETRY_MAX_MS: "100",
    });
    const b = await newBurner(src, usdc(4));
    const cmd = await settleCommand(src, b, intentFor(src, { deadline: (await now(src)) + 3600n }));
    await bus.send(cmd);
    const final = await bus.waitFor(cmd.commandId, "ExecutionFailed", (r) => !r.retryable);
    expect(final.errorMessage).toMatch(/^gave up after 2 tries: /);
    expect(bus.of(cmd.commandId).map((r) => r.type === "ExecutionFailed" && r.retryable)).toEqual([
      true,
      false,
    ]);
    expect(await ledgerRows(`${cmd.commandId}/sweep`)).toEqual([]);
    expect(await tokenBalance(src, b.burner.address)).toBe(usdc(4));
  },
  T,
);

it(
  "two executor processes share the partitions and the one relayer: every settle happens once, each at its own nonce",
  async () => {
    await executor();
    await executor();
    const cmds = [];
    for (let i = 0; i < 8; i++) {
      const b = await newBurner(src, usdc(1 + i));
      cmds.push(await settleCommand(src, b, intentFor(src, { deadline: (await now(src)) + 3600n })));
    }
    // One per partition, so both processes get work and number transactions at the same time.
    await Promise.all(cmds.map((c, i) => bus.send(c, i)));
    const swept = await Promise.all(cmds.map((c) => bus.waitFor(c.commandId, "SweepConfirmed")));
    expect(swept.map((s) => s.amountIn)).toEqual(cmds.map((_, i) => usdc(1 + i)));
    const nonces = await Promise.all(
      cmds.map(async (c) => (await ledgerRows(`${c.commandId}/sweep`)).map((r) => r.nonce)),
    );
    expect(nonces.every((n) => n.length === 1)).toBe(true);
    expect(new Set(nonces.flat()).size).toBe(8);
  },
  T,
);

it(
  "a SIGTERM while a sweep waits to be mined stops the executor within its bound; the next one finishes the same transaction",
  async () => {
    // The stop gives a step in flight half of SHUTDOWN_TIMEOUT_MS to finish (src/app/roles/executor.ts):
    // here 4 s, which a sweep held unmined outlasts, so the step is handed over, not finished.
    const first = await executor({ EXECUTOR_STUCK_AFTER_MS: "60000", SHUTDOWN_TIMEOUT_MS: "8000" });
    const b = await newBurner(src, usdc(2));
    const cmd = await settleCommand(src, b, intentFor(src, { deadline: (await now(src)) + 3600n }));
    await setMining(src, false);
    await bus.send(cmd);
    const submitted = await bus.waitFor(cmd.commandId, "TransactionSubmitted");
    const stopping = Date.now();
    await first.stop();
    // Within the stop's bound: well under the 60 s the wait for the receipt would last, and under
    // child-process's 15 s SIGKILL.
    expect(Date.now() - stopping).toBeLessThan(10_000);

    await executor({ EXECUTOR_STUCK_AFTER_MS: "60000" });
    await setMining(src, true);
    const swept = await bus.waitFor(cmd.commandId, "SweepConfirmed", () => true, 180_000);
    expect(swept.txHash).toBe(submitted.txHash);
    expect(await ledgerRows(`${cmd.commandId}/sweep`)).toHaveLength(1);
  },
  T,
);
