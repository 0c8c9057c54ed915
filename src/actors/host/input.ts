import type { VersionedEvent } from "../../domain/decider.ts";
import type { Codecs } from "../../kafka/codecs.ts";
import { parkedMessage } from "../../kafka/dead-letter.ts";
import type { InputBatch } from "../../kafka/partitioned-consumer.ts";
import type { OutgoingMessage } from "../../kafka/transactions.ts";
import type { HostScope } from "./owned.ts";

/** How a fetched batch becomes commands, and where a record that fails for good goes. */
export interface Input<Command> {
  /** The batch's commands, each with its record; a record that cannot be read is parked instead. */
  decode(batch: InputBatch): {
    commands: Command[];
    records: InputBatch["records"];
    parked: OutgoingMessage[];
  };
  /** A record that fails for good is parked on the dead-letter topic, so the partition goes on. */
  park(
    batch: InputBatch,
    record: InputBatch["records"][number],
    error: unknown,
    what: string,
  ): OutgoingMessage;
}

export function createInput<Command, Event extends VersionedEvent, State, Message>(
  scope: HostScope<Command, Event, State, Message>,
  deadLetter: { topic: string; codec: Codecs["deadLetter"] },
): Input<Command> {
  const { entity, log, now } = scope;
  const inputs = new Map(entity.inputs.map((i) => [i.topic, i]));

  function decode(batch: InputBatch) {
    const input = inputs.get(batch.topic);
    const commands: Command[] = [];
    const records: InputBatch["records"] = [];
    const parked: OutgoingMessage[] = [];
    if (!input) return { commands, records, parked };
    for (const r of batch.records) {
      if (!r.value) continue;
      try {
        commands.push(input.toCommand(r.value));
        records.push(r);
      } catch (err) {
        parked.push(park(batch, r, err, "record could not be read"));
      }
    }
    return { commands, records, parked };
  }

  function park(batch: InputBatch, record: InputBatch["records"][number], error: unknown, what: string) {
    log.error(
      { err: error, topic: batch.topic, partition: batch.partition, offset: record.offset.toString() },
      `${what}: parked on ${deadLetter.topic}`,
    );
    return parkedMessage(deadLetter.codec, entity.group, batch.topic, record, error, now());
  }

  return { decode, park };
}
