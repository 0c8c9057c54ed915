// One owner per executor step: two executors (two relayer wallets sharing the real Cassandra ledger,
// as two executor processes after a rebalance) given the same step at once send ONE transaction: the
// step is claimed (a lightweight transaction on its key) before any nonce is, the loser signs
// nothing and resumes the owner's transaction. A claim whose owner crashed is taken over once its
// lease runs out; an owner that stalled past its lease does not broadcast. A private anvil node per
// test (a random chain id, so earlier runs' ledger rows never meet this one's nonces).
import { randomInt, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Address, Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { StepTry } from "../../src/chains/adapter.ts";
import { createRelayerWallet, type TxRequest } from "../../src/chains/evm/settle/relayer-wallet.ts";
import { StepOwnedElsewhere } from "../../src/chains/execution-errors.ts";
import { executorLedger } from "../../src/store/executor-ledger.ts";
import { startTestChain, type TestChain } from "../support/anvil-chain.ts";
import { drivenService } from "../support/driven-service.ts";

const fx = drivenService();
// anvil's dev account #2: funded on a fresh node, and not the payer the helpers use (#0).
const RELAYER_KEY: Hex = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const relayer = privateKeyToAccount(RELAYER_KEY).address;
const SINK: Address = "0x000000000000000000000000000000000000dEaD";

let chain: TestChain;
beforeEach(async () => {
  chain = await startTestChain({ chainId: randomInt(40_000, 50_000) });
});
afterEach(async () => {
  await chain?.stop();
});

const wallet = (opts: { stepLeaseMs?: number } = {}) =>
  createRelayerWallet({
    chainId: chain.chainId,
    client: chain.client,
    privateKey: RELAYER_KEY,
    ledger: executorLedger(fx.service.cassandra),
    stuckAfterMs: 30_000,
    feeBumpPercent: 20,
    pollMs: 50,
    ...opts,
  });
const stepTry = (key: string, submitted: Hex[]): StepTry => ({
  key,
  bump: false,
  // The EVM relayer puts 0x hashes on the wire.
  onSubmitted: async (hash) => {
    submitted.push(hash as Hex);
  },
});
/** A transfer of nothing, built slowly: both executors are past their ledger look-up before either signs. */
const slowBuild = (builds: { n: number }, ms: number) => async (): Promise<TxRequest> => {
  builds.n++;
  await sleep(ms);
  return { to: SINK, data: "0x", gas: 21_000n };
};
const sent = () => chain.client.getTransactionCount({ address: relayer, blockTag: "latest" });

describe("one owner per executor step", () => {
  it("sends one transaction when two executors work the same step at once; the other resumes it", {
    timeout: 60_000,
  }, async () => {
    const key = `${randomUUID()}/refund`;
    const before = await sent();
    const builds = { n: 0 };
    const [a, b] = [wallet(), wallet()];
    const submitted: Hex[] = [];
    const [ra, rb] = await Promise.all([
      a.send(stepTry(key, submitted), slowBuild(builds, 300)),
      b.send(stepTry(key, submitted), slowBuild(builds, 300)),
    ]);
    expect(ra.transactionHash).toBe(rb.transactionHash);
    expect(await sent()).toBe(before + 1);
    // The loser never built, signed nor claimed a nonce: one ledger row, one hash reported.
    expect(builds.n).toBe(1);
    const rows = await executorLedger(fx.service.cassandra).byStep(key);
    expect(rows.map((r) => r.txHash)).toEqual([ra.transactionHash]);
    expect(new Set(submitted)).toEqual(new Set([ra.transactionHash]));
  });

  it("takes over a step whose owner crashed before recording a transaction, once its lease ran out", {
    timeout: 60_000,
  }, async () => {
    const key = `${randomUUID()}/sweep`;
    const ledger = executorLedger(fx.service.cassandra);
    // A process that claimed the step and died: its claim holds for 1.5 s.
    const crashed = await ledger.claimStep(key, "crashed-executor", 1500);
    expect(crashed.owner).toBe("crashed-executor");
    const before = await sent();
    const started = Date.now();
    const receipt = await wallet().send(stepTry(key, []), slowBuild({ n: 0 }, 0));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(receipt.status).toBe("success");
    expect(await sent()).toBe(before + 1);
    expect((await ledger.claimStep(key, "crashed-executor", 1500)).owner).not.toBe("crashed-executor");
  });

  it("does not broadcast when the step was taken over while its owner stalled past the lease", {
    timeout: 60_000,
  }, async () => {
    const key = `${randomUUID()}/refund`;
    const before = await sent();
    // A claims, then stalls 1.5 s building (past its 0.5 s lease); B takes over meanwhile and sends.
    const stalled = wallet({ stepLeaseMs: 500 }).send(stepTry(key, []), slowBuild({ n: 0 }, 1500));
    await sleep(800);
    const receipt = await wallet({ stepLeaseMs: 500 }).send(stepTry(key, []), slowBuild({ n: 0 }, 0));
    await expect(stalled).rejects.toBeInstanceOf(StepOwnedElsewhere);
    expect(await sent()).toBe(before + 1);
    // A's signed transaction is released (superseded), never broadcast: the step's live row is B's.
    const rows = await executorLedger(fx.service.cassandra).byStep(key);
    expect(rows.filter((r) => r.state !== "superseded").map((r) => r.txHash)).toEqual([
      receipt.transactionHash,
    ]);
    expect(
      await chain.client
        .getTransaction({ hash: rows.find((r) => r.state === "superseded")?.txHash ?? "0x" })
        .catch(() => null),
    ).toBeNull();
  });
});
