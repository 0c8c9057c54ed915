import { TOPIC } from "../../topics/catalogue.ts";
import type { ChainAdapter, ChainExecutor, ChainExecutorDeps } from "../chains/adapter.ts";
import { createPlainProducer } from "../kafka/at-least-once.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codecs } from "../kafka/codecs.ts";
import { createKeyedConsumer } from "../kafka/keyed-consumer.ts";
import type { Logger } from "../logging.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { executorLedger } from "../store/executor-ledger.ts";
import { fillInventory } from "../store/fill-inventory.ts";
import { createPacer } from "../support/pacer.ts";
import type { FillGauges, FillSettings } from "./fast-fill.ts";
import { handleCommand } from "./handle-command.ts";
import { resultReporter } from "./results.ts";
import type { StepPolicy } from "./step.ts";
import { subscriptionResultWriter } from "./subscriptions.ts";

const NO_GAUGES: FillGauges = { inventory: () => {}, fill: () => {} };

/** The executor's consumer group: members share executor.commands' partitions. */
export const EXECUTOR_GROUP = "executor";

export interface ExecutorOptions {
  kafka: KafkaClient;
  codecs: Codecs;
  cassandra: CassandraClient;
  chains: readonly ChainAdapter[];
  settings: ChainExecutorDeps["settings"] &
    Omit<StepPolicy, "signal"> & { concurrency: number; fill: FillSettings; attestationMaxPerSecond: number };
  log: Logger;
  /** What the fast fill tells the operator (the role turns it into metrics); nothing by default. */
  fillGauges?: FillGauges;
}

/**
 * The executor: works executor.commands (per session in order, sessions side by side), sends
 * through each chain's relayer, reports on executor.results, and commits a command's offset only
 * once everything it did is in the ledger and everything it reports is on the topic.
 */
export function createExecutor(opts: ExecutorOptions) {
  const abort = new AbortController();
  const ledger = executorLedger(opts.cassandra);
  const inventory = fillInventory(opts.cassandra);
  const executors = new Map<number, ChainExecutor>();
  const attestationPacer = createPacer(opts.settings.attestationMaxPerSecond);
  for (const adapter of opts.chains) {
    if (!adapter.relayer) continue;
    executors.set(
      adapter.chain.chainId,
      adapter.createExecutor({ ledger, settings: opts.settings, attestationPacer, signal: abort.signal }),
    );
  }
  const producer = createPlainProducer(opts.kafka);
  const report = resultReporter(producer, opts.codecs);
  const { maxAttempts, baseMs, maxMs } = opts.settings;
  const policy: StepPolicy = { maxAttempts, baseMs, maxMs, signal: abort.signal };
  const consumer = createKeyedConsumer(opts.kafka, {
    codecs: opts.codecs,
    groupId: EXECUTOR_GROUP,
    topic: TOPIC.executorCommands,
    maxInFlight: opts.settings.concurrency,
    log: (level, msg, fields) => opts.log[level](fields ?? {}, msg),
    onCrash: (err) => opts.log.error({ err }, "executor consumer stopped"),
    async handle(record) {
      // A record that cannot be read throws a terminal error: the consumer parks it on the
      // dead-letter topic (there is no command id to answer to) and the partition goes on.
      const command = opts.codecs.executorCommand.decode(record.value ?? Buffer.alloc(0));
      opts.log.info({ commandId: command.commandId, type: command.command.type }, "command");
      await handleCommand(command, {
        executors,
        report,
        subscriptionResults: subscriptionResultWriter(producer, opts.codecs),
        policy,
        log: (msg, fields) => opts.log.warn(fields ?? {}, msg),
        fill: { inventory, settings: opts.settings.fill, gauges: opts.fillGauges ?? NO_GAUGES },
      });
    },
  });

  return {
    /** The chains this process can send on. */
    chainIds: [...executors.keys()],
    /** Commands being worked now. */
    inFlight: consumer.inFlight,
    async start() {
      await producer.connect();
      await consumer.start();
    },
    /**
     * Takes no new command and gives the steps in flight `finishWithinMs` to end, committed, before
     * leaving the group: a step ended here is not worked (nor its transaction broadcast) again by the
     * next owner. Steps still running then are cut short and left to the next owner, which resumes
     * each from the ledger (docs/EXECUTOR.md, "One owner per step").
     */
    async stop(finishWithinMs = 0) {
      await consumer.stop({
        finishWithinMs,
        onUnfinished: () => {
          opts.log.warn(
            { inFlight: consumer.inFlight(), finishWithinMs },
            "steps still running at the stop: left to the next owner",
          );
          abort.abort(new Error("executor stopping"));
        },
      });
      abort.abort(new Error("executor stopping"));
      await producer.disconnect();
    },
  };
}
