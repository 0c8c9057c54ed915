import type { ChainExecutor, StepTry, TxHash } from "../chains/adapter.ts";
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
  const giveUp = (reason: string): never => {
    throw new StepGaveUp(reason, null);
  };
  try {
    if (c.type === "Sweep" || c.type === "Charge") {
      // Written by an older session core; nothing carries them out any more.
      await fail(`unsupported command ${c.type}`, false, null);
      return;
    }
    const chain = executorOf(command.chainId);
    if (!chain.carriesOut.has(c.type)) giveUp(`chain ${command.chainId} does not carry out ${c.type}`);
    await chain.execute({
      command,
      step,
      report: (result, chainId) => report(command, result, chainId),
      executorOf,
      giveUp,
      fastFill(payer) {
        if (c.type !== "FastFill") return giveUp(`${c.type} is no fast fill`);
        if (!deps.fill) return giveUp("this executor has no fill inventory: it cannot pay a fast fill");
        const { policy, log } = deps;
        return runFastFill(command, c, payer, { ...deps.fill, report, step, log, signal: policy.signal });
      },
      subscriptionWork(call) {
        if (c.type !== "ChargeSubscription" && c.type !== "CancelMandate")
          return giveUp(`${c.type} is no subscription's work`);
        return handleSubscriptionWork(command, c, call, deps);
      },
    });
  } catch (err) {
    if (!(err instanceof StepGaveUp)) throw err;
    deps.log("command failed", { commandId: command.commandId, error: err.message });
    await fail(err.message, false, err.txHash);
  }
}
