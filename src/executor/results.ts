import { TOPIC } from "../../topics/catalogue.ts";
import type { PlainProducer } from "../kafka/at-least-once.ts";
import type { Codecs } from "../kafka/codecs.ts";
import type { ExecutorCommand } from "../records/executor-commands.ts";
import type { ExecutorResult } from "../records/executor-results.ts";

export type ResultBody = ExecutorResult["result"];

/** Publishes a command's results on executor.results, keyed by session id, with the command's id. */
export type Report = (command: ExecutorCommand, result: ResultBody, chainId?: number) => Promise<void>;

/**
 * Resolves once the result is durable (acks from all replicas), so a command counts as done only
 * after everything it reported is on the topic. A result sent again after a crash is expected: the
 * session treats a repeated result as a retry.
 */
export function resultReporter(producer: PlainProducer, codecs: Codecs): Report {
  return (command, result, chainId = command.chainId) => {
    const record: ExecutorResult = {
      commandId: command.commandId,
      sessionId: command.sessionId,
      chainId,
      occurredAt: Date.now(),
      result,
    };
    return producer.send(TOPIC.executorResults, [
      { key: command.sessionId ?? command.commandId, value: codecs.executorResult.encode(record) },
    ]);
  };
}
