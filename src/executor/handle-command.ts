import type { ChainExecutor, Mined, SolanaMined, StepTry, TxHash } from "../chains/adapter.ts";
import type { ExecutorCommand } from "../records/executor-commands.ts";
import { type FillDeps, runFastFill } from "./fast-fill.ts";
import type { Report } from "./results.ts";
import { messageOf, runStep, StepGaveUp, type StepPolicy } from "./step.ts";
import { handleSubscriptionWork, type SubscriptionResults } from "./subscriptions.ts";

export interface CommandDeps {
  /** The executor of each chain the process can send on, by chain id. */
  executors: ReadonlyMap<number, ChainExecutor>;
  report: Report;
  policy: StepPolicy;
  log: (msg: string, fields?: object) => void;
  /** Where subscription charge results go (subscription.commands); src/executor/subscriptions.ts. */
  subscriptionResults?: SubscriptionResults;
  /** The fast fill's inventory ledger, settings and gauges (src/executor/fast-fill.ts). */
  fill?: Pick<FillDeps, "inventory" | "settings" | "gauges">;
}

/**
 * Carries out one command and reports every step on executor.results. Resolves once everything is
 * reported (the command is done and its offset may be committed); rejects only on shutdown. Running
 * a command again (re-delivered after a crash) resumes each step from the ledger and re-reports.
 */
export async function handleCommand(command: ExecutorCommand, deps: CommandDeps): Promise<void> {
  const { report } = deps;
  const fail = (errorMessage: string, retryable: boolean, txHash: TxHash | null, chainId?: number) =>
    report(command, { type: "ExecutionFailed", errorMessage, retryable, txHash }, chainId);
  const step = <T>(name: string, chainId: number, fn: (t: StepTry) => Promise<T>, submitted = true) =>
    runStep(
      `${command.commandId}/${name}`,
      deps.policy,
      {
        onSubmitted: (txHash) =>
          submitted ? report(command, { type: "TransactionSubmitted", txHash }, chainId) : Promise.resolve(),
        onRetry: (err, txHash) => fail(`${name}: ${messageOf(err)}`, true, txHash, chainId),
        onGiveUp: async () => {
          const cancelled = await deps.executors
            .get(chainId)
            ?.cancel(`${command.commandId}/${name}`)
            .catch((err: unknown) => deps.log("cancel failed", { commandId: command.commandId, err }));
          if (cancelled)
            deps.log("pending transaction cancelled", { commandId: command.commandId, cancelled });
        },
      },
      fn,
    );
  const executorOf = (chainId: number): ChainExecutor => {
    const found = deps.executors.get(chainId);
    if (!found) throw new StepGaveUp(`no executor for chain ${chainId} (no relayer configured)`, null);
    return found;
  };

  const c = command.command;
  try {
    switch (c.type) {
      case "Settle": {
        const source = executorOf(command.chainId);
        const swept = await step("sweep", command.chainId, (t) => source.sweep(c, t));
        const { destChainId, destAddr, txHash, blockNumber, bridged, ...amounts } = swept;
        await report(command, { type: "SweepConfirmed", txHash, blockNumber, bridged, ...amounts });
        if (!bridged) return;
        const dest = executorOf(destChainId);
        // The relay's hash is not a TransactionSubmitted: the session's sweep_tx is the sweep's.
        const relayed = await step(
          "relay",
          destChainId,
          (t) => dest.relay(() => source.attestation(txHash), destAddr, t),
          false,
        );
        await report(command, { type: "BridgeRelayed", destChainId, ...relayed });
        return;
      }
      case "Refund":
      case "RefundAll": {
        const chain = executorOf(command.chainId);
        const done: Mined = await step(c.type === "Refund" ? "refund" : "refund-all", command.chainId, (t) =>
          c.type === "Refund" ? chain.refund(c, t) : chain.refundAll(c, t),
        );
        await report(command, { type: "TransactionConfirmed", ...done });
        return;
      }
      case "RelaySolanaSweep": {
        const chain = executorOf(command.chainId);
        const relay = chain.relaySolanaSweep?.bind(chain);
        if (!relay)
          throw new StepGaveUp(
            `chain ${command.chainId} is no Solana chain: it relays no Solana sweep`,
            null,
          );
        const done = await step("sweep", command.chainId, (t) => relay(c, t));
        // The transaction was checked to be exactly these transfers, and it succeeded: they happened.
        const { amountIn, feeAmount, appFeeAmount, deliveredAmount, bridged } = c;
        await report(command, {
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
      case "SolanaBounceSetup":
      case "SolanaBounce":
      case "RelaySolanaRefund": {
        const bouncer = executorOf(command.chainId).bouncer;
        if (!bouncer) throw new StepGaveUp(`chain ${command.chainId} has no Solana bouncer`, null);
        const sessionId = command.sessionId ?? "";
        // Not a TransactionSubmitted: the session records the bounce or refund once it is confirmed.
        const done = await step(
          c.type === "SolanaBounce" ? "bounce" : c.type === "RelaySolanaRefund" ? "refund" : "bounce-setup",
          command.chainId,
          () =>
            c.type === "SolanaBounce"
              ? bouncer.bounce(c)
              : c.type === "RelaySolanaRefund"
                ? bouncer.relayRefund(c)
                : bouncer.relaySetup(c, sessionId),
          false,
        );
        await report(command, { type: "TransactionConfirmed", ...done });
        return;
      }
      case "Announce": {
        const chain = executorOf(command.chainId);
        const announce = chain.announce?.bind(chain);
        if (!announce) throw new StepGaveUp(`chain ${command.chainId} announces no stealth payment`, null);
        // Not a TransactionSubmitted: the session's sweep_tx is the sweep's; it records the announcement once mined.
        const done: Mined | SolanaMined = await step(
          "announce",
          command.chainId,
          (t) => announce(c, t),
          false,
        );
        await report(command, { type: "TransactionConfirmed", ...done });
        return;
      }
      case "ChargeSubscription":
      case "CancelMandate":
        await handleSubscriptionWork(command, c, deps);
        return;
      case "FastFill": {
        if (!deps.fill)
          throw new StepGaveUp("this executor has no fill inventory: it cannot pay a fast fill", null);
        const { report, policy, log } = deps;
        await runFastFill(command, c, executorOf(command.chainId), {
          ...deps.fill,
          report,
          step,
          log,
          signal: policy.signal,
        });
        return;
      }
      case "Sweep":
      case "Charge":
        await fail(`unsupported command ${c.type}`, false, null);
        return;
      default: {
        const never: never = c;
        await fail(`unsupported command ${(never as { type: string }).type}`, false, null);
      }
    }
  } catch (err) {
    if (!(err instanceof StepGaveUp)) throw err;
    deps.log("command failed", { commandId: command.commandId, error: err.message });
    await fail(err.message, false, err.txHash);
  }
}
