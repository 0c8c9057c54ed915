import { TOPIC } from "../../topics/catalogue.ts";
import type {
  CancelMandateCommand,
  ChainExecutor,
  ChargeSubscriptionCommand,
  Mined,
  StepTry,
} from "../chains/adapter.ts";
import type { SubscriptionCommand } from "../domain/subscription/types.ts";
import type { PlainProducer } from "../kafka/at-least-once.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { ExecutorCommand } from "../records/executor-commands.ts";
import { messageOf, runStep, StepGaveUp, type StepPolicy } from "./step.ts";

/** Where a charge's outcome goes: the subscription's own input, subscription.commands (not executor.results). */
export type SubscriptionResults = (command: SubscriptionCommand) => Promise<void>;

/** Resolves once the result is durable, so the executor command counts as done only after it. */
export function subscriptionResultWriter(producer: PlainProducer, codecs: Codecs): SubscriptionResults {
  return (command) =>
    producer.send(TOPIC.subscriptionCommands, [
      { key: command.data.subscriptionId, value: codecs.subscriptionCommand.encode(command) },
    ]);
}

/** What a subscription's work needs of the executor role (a part of handle-command's deps). */
export interface SubscriptionWorkDeps {
  executors: ReadonlyMap<number, Pick<ChainExecutor, "cancel">>;
  policy: StepPolicy;
  log: (msg: string, fields?: object) => void;
  subscriptionResults?: SubscriptionResults | undefined;
}

/**
 * A subscription's work on its chain's SubscriptionManager, through the chain's one relayer (its
 * ledger-backed nonces, as every other step): a charge, whose outcome (confirmed with its hash, or
 * failed with the reason) goes back to the subscription as RecordChargeResult; or the payer's
 * relayed cancel, which reports nothing (the subscription is canceled already; its Canceled log is
 * mirrored like any on-chain cancel). A charge that would revert (allowance removed, period over)
 * fails at its estimate, at once: the subscription decides whether to try again.
 */
export async function handleSubscriptionWork(
  command: ExecutorCommand,
  work: ChargeSubscriptionCommand | CancelMandateCommand,
  call: (t: StepTry) => Promise<Mined>,
  deps: SubscriptionWorkDeps,
): Promise<void> {
  const stepName = work.type === "ChargeSubscription" ? "charge" : "cancel-mandate";
  const stepKey = `${command.commandId}/${stepName}`;
  let outcome: { mined: Mined } | { error: string; txHash: `0x${string}` | null };
  try {
    const chain = deps.executors.get(command.chainId);
    if (!chain)
      throw new StepGaveUp(`no executor for chain ${command.chainId} (no relayer configured)`, null);
    const mined = await runStep(
      stepKey,
      deps.policy,
      {
        onSubmitted: async () => {},
        onRetry: async (err) => deps.log("subscription step retried", { stepKey, error: messageOf(err) }),
        onGiveUp: async () => {
          await chain.cancel(stepKey).catch((err: unknown) => deps.log("cancel failed", { stepKey, err }));
        },
      },
      call,
    );
    outcome = { mined };
  } catch (err) {
    if (!(err instanceof StepGaveUp)) throw err;
    outcome = { error: err.message, txHash: err.txHash };
  }
  if (work.type === "CancelMandate") {
    if ("error" in outcome) deps.log("payer's cancel not relayed", { stepKey, error: outcome.error });
    return;
  }
  const record = deps.subscriptionResults;
  if (!record) throw new Error("the executor has no subscription results writer");
  await record({
    type: "RecordChargeResult",
    data: {
      subscriptionId: work.subscriptionId,
      periodIndex: work.periodIndex,
      attempt: work.attempt,
      txHash: "mined" in outcome ? outcome.mined.txHash : outcome.txHash,
      errorMessage: "error" in outcome ? outcome.error : null,
    },
    // One result per executor command: re-sent after a crash, the subscription sees a retry.
    metadata: { commandId: `result:${command.commandId}`, issuedAt: Date.now(), replyTo: null },
  });
}
