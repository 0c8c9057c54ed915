import {
  type AnnounceCommand,
  type AttestedMessage,
  type CancelMandateCommand,
  type ChainExecutor,
  type ChargeSubscriptionCommand,
  type CommandRun,
  commandKinds,
  type FillPayer,
  type Mined,
  type OwnWork,
  type RefundAllCommand,
  type RefundCommand,
  type RelayDone,
  type SettleCommand,
  type StepTry,
  type SweepDone,
  type TxHash,
} from "../../adapter.ts";

/** The commands an EVM chain carries out (docs/EXECUTOR.md); a Solana chain's are in src/chains/solana/executor.ts. */
const EVM_WORK = commandKinds([
  "Settle",
  "Refund",
  "RefundAll",
  "Announce",
  "ChargeSubscription",
  "CancelMandate",
  "FastFill",
]);
type EvmWork = OwnWork<typeof EVM_WORK>;

/** The EVM steps of one chain; each method is one try, the executor role retries and reports. */
export interface EvmChainSteps extends FillPayer {
  /** The Settle command's sweep on this (the source) chain. */
  sweep(command: SettleCommand, step: StepTry): Promise<SweepDone>;
  /** The attested bridge message the sweep transaction `txHash` sent (polls until the attestation is ready). */
  attestation(txHash: TxHash): Promise<AttestedMessage>;
  /**
   * Receives a bridge message on this (the destination) chain, for `recipient`. `attested` is asked
   * only when a transaction must be signed: a relay found in the ledger needs no attestation.
   */
  relay(attested: () => Promise<AttestedMessage>, recipient: string, step: StepTry): Promise<RelayDone>;
  refund(command: RefundCommand, step: StepTry): Promise<Mined>;
  refundAll(command: RefundAllCommand, step: StepTry): Promise<Mined>;
  /** A subscription's charge or the payer's relayed cancel, on the chain's SubscriptionManager (docs/SUBSCRIPTIONS.md). */
  subscriptionCall(command: ChargeSubscriptionCommand | CancelMandateCommand, step: StepTry): Promise<Mined>;
  /** A Flow D session's ERC-5564 announcement (docs/STEALTH.md). */
  announce(command: AnnounceCommand, step: StepTry): Promise<Mined>;
  cancel(stepKey: string): Promise<TxHash | null>;
}

/**
 * The EVM chains' steps, by executor: a Settle's bridge relay runs on its destination chain, which is
 * an EVM chain of the same process; the family finds that chain's steps here, behind the generic
 * ChainExecutor the role holds.
 */
const stepsOf = new WeakMap<ChainExecutor, EvmChainSteps>();

/** One EVM chain's executor: each command's steps, in order, each reported as it completes. */
export function evmExecutor(steps: EvmChainSteps): ChainExecutor {
  const executor: ChainExecutor = {
    carriesOut: EVM_WORK.carriesOut,
    cancel: (stepKey) => steps.cancel(stepKey),
    async execute(run) {
      const work = run.command.command;
      if (!EVM_WORK.isOwn(work)) return run.giveUp(`an EVM chain does not carry out ${work.type}`);
      await carryOut(steps, work, run);
    },
  };
  stepsOf.set(executor, steps);
  return executor;
}

async function carryOut(steps: EvmChainSteps, c: EvmWork, run: CommandRun): Promise<void> {
  const { chainId } = run.command;
  switch (c.type) {
    case "Settle": {
      const swept = await run.step("sweep", chainId, (t) => steps.sweep(c, t));
      const { destChainId, destAddr, txHash, blockNumber, bridged, ...amounts } = swept;
      await run.report({ type: "SweepConfirmed", txHash, blockNumber, bridged, ...amounts });
      if (!bridged) return;
      const dest = stepsOf.get(run.executorOf(destChainId));
      if (!dest) return run.giveUp(`chain ${destChainId} is no EVM chain: it receives no CCTP message`);
      // The relay's hash is not a TransactionSubmitted: the session's sweep_tx is the sweep's.
      const relayed = await run.step(
        "relay",
        destChainId,
        (t) => dest.relay(() => steps.attestation(txHash), destAddr, t),
        false,
      );
      await run.report({ type: "BridgeRelayed", destChainId, ...relayed });
      return;
    }
    case "Refund":
    case "RefundAll": {
      const done: Mined = await run.step(c.type === "Refund" ? "refund" : "refund-all", chainId, (t) =>
        c.type === "Refund" ? steps.refund(c, t) : steps.refundAll(c, t),
      );
      await run.report({ type: "TransactionConfirmed", ...done });
      return;
    }
    case "Announce": {
      // Not a TransactionSubmitted: the session's sweep_tx is the sweep's; it records the announcement once mined.
      const done = await run.step("announce", chainId, (t) => steps.announce(c, t), false);
      await run.report({ type: "TransactionConfirmed", ...done });
      return;
    }
    case "ChargeSubscription":
    case "CancelMandate":
      await run.subscriptionWork((t) => steps.subscriptionCall(c, t));
      return;
    case "FastFill":
      await run.fastFill(steps);
      return;
    default: {
      const never: never = c;
      run.giveUp(`an EVM chain does not carry out ${(never as { type: string }).type}`);
    }
  }
}
