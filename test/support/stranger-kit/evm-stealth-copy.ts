// The EVM copied stealth withdrawal (issue 27, item 7) on a private anvil with mining paused, as a public
// mempool lets anyone do: the relayer's StealthRelay.withdraw is pending, a stranger reads it and sends
// it first with a higher tip, and also spends the authorization in it directly through the token. The
// shared chains mine every second and cannot be paused, so this case keeps its own chain.
import { decodeFunctionData, type Hex, parseEventLogs, parseGwei } from "viem";
import { expect } from "vitest";
import { stealthRelayAbi, testUsdcAbi } from "../../../src/chains/evm/abi.ts";
import {
  STEALTH_AMOUNT as AMOUNT,
  fundedWallet,
  randomAddress,
  startRelayChain,
  withdrawArgs,
} from "../stealth-relay.ts";
import type { CopyReport } from "./kit.ts";

const FEE = 300_000n; // 0.30 USDC
const GAS = 300_000n; // explicit: a transaction that will revert is still sent and mined

export async function copyStealthWithdrawal(): Promise<CopyReport> {
  const ctx = await startRelayChain(31_992);
  try {
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
    let sent: Hex[];
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
      // The stranger reads it from the mempool and outbids it, twice: the same call, and the
      // authorization in it handed straight to the token. anvil orders the higher fee first.
      const pending = await chain.client.getTransaction({ hash: ours });
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
      sent = [copy, direct, ours];
      await chain.mine(1);
    } finally {
      await chain.setAutomine(true);
    }
    const [copied, direct, ours] = await Promise.all(
      sent.map((hash) => chain.client.waitForTransactionReceipt({ hash })),
    );
    // One block, the stranger's two first; the relayer's, after them, succeeded and paid it the fee.
    expect(new Set([copied?.blockNumber, direct?.blockNumber, ours?.blockNumber]).size).toBe(1);
    expect(copied?.transactionIndex).toBeLessThan(ours?.transactionIndex ?? 0);
    expect(direct?.transactionIndex).toBeLessThan(ours?.transactionIndex ?? 0);
    expect(ours?.status).toBe("success");
    const [event] = parseEventLogs({ abi: stealthRelayAbi, eventName: "Withdrawn", logs: ours?.logs ?? [] });
    expect(event?.args).toMatchObject({ fee: FEE, relayer: relayer.account.address, amount: AMOUNT - FEE });
    // The stranger paid the gas of both tries.
    expect(await chain.client.getBalance({ address: stranger.account.address })).toBeLessThan(strangerEth);
    return {
      copies: [
        { what: "the same call, outbid", landed: copied?.status === "success" },
        { what: "the authorization, straight to the token", landed: direct?.status === "success" },
      ],
      strangerUsdc: await ctx.balance(stranger.account.address),
      relayerTransactions:
        (await chain.client.getTransactionCount({ address: relayer.account.address })) - relayerNonce,
      relayerFeeEarned: (await ctx.balance(relayer.account.address)) - relayerUsdc,
      signedFee: FEE,
      held: AMOUNT,
      left: await ctx.balance(stealth.address),
      delivered: await ctx.balance(w.destination),
    };
  } finally {
    await ctx.chain.stop();
  }
}
