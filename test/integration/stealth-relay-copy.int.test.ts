// A copied stealth withdrawal (issue 27, item 7) on a private anvil with mining paused, as a public mempool
// lets anyone do: the relayer's StealthRelay.withdraw is pending, a stranger reads it and sends it first with a
// higher tip, and also tries to spend the authorization in it directly through the token. The stranger's
// transactions revert at the stranger's cost and earn nothing; the relayer's, mined after them, withdraws and
// pays the relayer the fee. Before the fix the copy was paid the fee and the relayer's transaction reverted.
import { decodeFunctionData, type Hex, parseEventLogs, parseGwei } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stealthRelayAbi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import {
  STEALTH_AMOUNT as AMOUNT,
  fundedWallet,
  randomAddress,
  startRelayChain,
  withdrawArgs,
} from "../support/stealth-relay.ts";

const T = 60_000;
const FEE = 300_000n; // 0.30 USDC
const GAS = 300_000n; // explicit: a transaction that will revert is still sent and mined

let ctx: Awaited<ReturnType<typeof startRelayChain>>;
beforeAll(async () => {
  ctx = await startRelayChain(31_992);
}, T);
afterAll(async () => ctx?.chain.stop());

describe("a copied stealth withdrawal", () => {
  it("earns the stranger who sends it first nothing; the relayer's own transaction withdraws and is paid the fee", async () => {
    const { chain, relay, relayer } = ctx;
    const stealth = await ctx.fundedStealth();
    const stranger = await fundedWallet(chain);
    const w = {
      destination: randomAddress(),
      fee: FEE,
      relayer: relayer.account.address,
      deadline: await ctx.deadline(),
    };
    const pair = await ctx.signPair(stealth, w);
    const relayerUsdc = await ctx.balance(relayer.account.address);
    const strangerEth = await chain.client.getBalance({ address: stranger.account.address });
    const relayerNonce = await chain.client.getTransactionCount({ address: relayer.account.address });

    await chain.setAutomine(false);
    let mined: Hex[];
    try {
      const ours = await relayer.writeContract({
        address: relay,
        abi: stealthRelayAbi,
        functionName: "withdraw",
        args: withdrawArgs(pair, w),
        account: relayer.account,
        chain: chain.client.chain,
        gas: GAS,
        maxPriorityFeePerGas: parseGwei("1"),
        maxFeePerGas: parseGwei("50"),
      });
      // The stranger reads it from the mempool and outbids it, twice: the same call, and the authorization
      // in it handed straight to the token.
      const pending = await chain.client.getTransaction({ hash: ours });
      // anvil puts the higher max fee first in the block, as a miner paid more would.
      const tip = { gas: GAS, maxPriorityFeePerGas: parseGwei("20"), maxFeePerGas: parseGwei("100") };
      const copy = await stranger.sendTransaction({
        to: relay,
        data: pending.input,
        account: stranger.account,
        chain: chain.client.chain,
        ...tip,
      });
      const [a] = decodeFunctionData({ abi: stealthRelayAbi, data: pending.input }).args as unknown as [
        ReturnType<typeof withdrawArgs>[0],
      ];
      const direct = await stranger.writeContract({
        address: chain.usdc,
        abi: testUsdcAbi,
        functionName: "receiveWithAuthorization",
        args: [a.from, relay, a.value, a.validAfter, a.validBefore, a.nonce, a.v, a.r, a.s],
        account: stranger.account,
        chain: chain.client.chain,
        ...tip,
      });
      mined = [copy, direct, ours];
      await chain.mine(1);
    } finally {
      await chain.setAutomine(true);
    }

    const [copied, direct, ours] = await Promise.all(
      mined.map((hash) => chain.client.waitForTransactionReceipt({ hash })),
    );
    // One block, the stranger's two first: each reverted; the relayer's, after them, succeeded.
    expect([copied?.status, direct?.status, ours?.status]).toEqual(["reverted", "reverted", "success"]);
    expect(new Set([copied?.blockNumber, direct?.blockNumber, ours?.blockNumber]).size).toBe(1);
    expect(copied?.transactionIndex).toBeLessThan(ours?.transactionIndex ?? 0);
    expect(direct?.transactionIndex).toBeLessThan(ours?.transactionIndex ?? 0);

    expect(await ctx.balance(stealth.address)).toBe(0n);
    expect(await ctx.balance(w.destination)).toBe(AMOUNT - FEE);
    expect((await ctx.balance(relayer.account.address)) - relayerUsdc).toBe(FEE);
    // The stranger earned no USDC and paid the gas of both tries.
    expect(await ctx.balance(stranger.account.address)).toBe(0n);
    expect(await chain.client.getBalance({ address: stranger.account.address })).toBeLessThan(strangerEth);
    // The relayer sent one transaction, and it is the withdrawal that paid it.
    expect(await chain.client.getTransactionCount({ address: relayer.account.address })).toBe(
      relayerNonce + 1,
    );
    const [event] = parseEventLogs({ abi: stealthRelayAbi, eventName: "Withdrawn", logs: ours?.logs ?? [] });
    expect(event?.args).toMatchObject({ fee: FEE, relayer: relayer.account.address, amount: AMOUNT - FEE });
  });
});
