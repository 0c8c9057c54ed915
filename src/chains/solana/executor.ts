import { Connection, type Keypair } from "@solana/web3.js";
import { type ChainExecutor, type CommandRun, commandKinds, type OwnWork } from "../adapter.ts";
import { createSolanaAnnouncer } from "./announce.ts";
import { createSolanaBouncer } from "./bounce-executor.ts";
import { createSweepRelay } from "./sweep-relay.ts";

/** The commands a Solana chain carries out; an EVM chain's are in src/chains/evm/settle/carry-out.ts. */
const SOLANA_WORK = commandKinds([
  "RelaySolanaSweep",
  "SolanaBounceSetup",
  "SolanaBounce",
  "RelaySolanaRefund",
  "Announce",
]);
type SolanaWork = OwnWork<typeof SOLANA_WORK>;

/**
 * The Solana chain's executor: it relays what a Solana burner signed (the sweep and the bounce
 * setup, co-signed as fee payer), bounces an ended session's USDC as the delegate that setup
 * approved (docs/SOLANA.md, "The bounce") and announces Flow D payments with a memo
 * (docs/STEALTH.md). Nothing of a Solana step waits at a nonce: a transaction whose blockhash
 * expires can never land, so a step given up on has nothing to cancel.
 */
export function createSolanaExecutor(deps: {
  chainId: number;
  rpcUrl: string;
  relayer: Keypair;
  /** The chain's USDC mint: the only token a bounce moves. */
  usdcMint: string;
  signal: AbortSignal;
}): ChainExecutor {
  const connection = new Connection(deps.rpcUrl, { commitment: "confirmed" });
  const relaySweep = createSweepRelay(deps);
  const bouncer = createSolanaBouncer({ connection, relayer: deps.relayer, mint: deps.usdcMint });
  const announce = createSolanaAnnouncer({ ...deps, connection });

  async function carryOut(c: SolanaWork, run: CommandRun): Promise<void> {
    const { chainId, sessionId } = run.command;
    switch (c.type) {
      case "RelaySolanaSweep": {
        const done = await run.step("sweep", chainId, (t) => relaySweep(c, t));
        // The transaction was checked to be exactly these transfers, and it succeeded: they happened.
        const { amountIn, feeAmount, appFeeAmount, deliveredAmount, bridged } = c;
        await run.report({
          type: "SweepConfirmed",
          ...done,
          amountIn,
          swapOutputAmount: amountIn,
          feeAmount,
          appFeeAmount,
          deliveredAmount,
          bridged,
          swapped: false,
        });
        return;
      }
      // Not TransactionSubmitted: the session records a bounce, refund or setup once it is confirmed.
      case "SolanaBounceSetup":
        await reportLanded(
          run,
          await run.step("bounce-setup", chainId, () => bouncer.relaySetup(c, sessionId ?? ""), false),
        );
        return;
      case "SolanaBounce":
        await reportLanded(run, await run.step("bounce", chainId, () => bouncer.bounce(c), false));
        return;
      case "RelaySolanaRefund":
        await reportLanded(run, await run.step("refund", chainId, () => bouncer.relayRefund(c), false));
        return;
      case "Announce":
        // Not a TransactionSubmitted: the session's sweep_tx is the sweep's; it records the announcement once confirmed.
        await reportLanded(run, await run.step("announce", chainId, (t) => announce(c, t), false));
        return;
      default: {
        const never: never = c;
        return run.giveUp(`a Solana chain does not carry out ${(never as { type: string }).type}`);
      }
    }
  }

  return {
    carriesOut: SOLANA_WORK.carriesOut,
    cancel: async () => null,
    async execute(run) {
      const work = run.command.command;
      if (!SOLANA_WORK.isOwn(work)) return run.giveUp(`a Solana chain does not carry out ${work.type}`);
      await carryOut(work, run);
    },
  };
}

const reportLanded = (
  run: CommandRun,
  done: { txHash: string; blockNumber: bigint; gas: { gasUsed: bigint; feeWei: bigint } | null },
) => run.report({ type: "TransactionConfirmed", ...done });
