import { parseArgs } from "node:util";
import type { Config } from "../config.ts";
import { createKafka } from "../kafka/client.ts";
import { singleObjectCodecs } from "../kafka/codecs.ts";
import { listParked, type Parked, redrive } from "../kafka/dead-letter.ts";
import { BaseError } from "../support/errors.ts";
import { resolveInfra } from "./infra.ts";

const say = (line: string) => process.stdout.write(`${line}\n`);

export const DEADLETTER_USAGE = `deadletter list [--topic T]            the parked records (of topic T), oldest first
  deadletter redrive --topic T --partition P --offset O
                                          send a parked record back to its topic, once`;

/**
 * `deadletter list|redrive`: the operator's view of the dead-letter topic. A record is re-driven
 * after the cause is fixed (a new release that can read it); if it fails again it is parked again,
 * under its new offset.
 */
export async function deadLetterCommand(args: string[], config: Config): Promise<number> {
  const [action, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: { topic: { type: "string" }, partition: { type: "string" }, offset: { type: "string" } },
  });
  const infra = await resolveInfra(config, {});
  const kafka = createKafka({ brokers: infra.brokers, clientId: `${config.KAFKA_CLIENT_ID}.deadletter` });
  const codec = singleObjectCodecs().deadLetter;
  if (action === "list") {
    const parked = (await listParked(kafka, codec)).filter(
      (p) => !values.topic || p.letter.topic === values.topic,
    );
    for (const p of parked) say(describe(p));
    say(`${parked.length} parked, ${parked.filter((p) => p.redrivenTo === null).length} not re-driven`);
    return 0;
  }
  const partition = Number(values.partition);
  const offset = Number(values.offset);
  if (action !== "redrive" || !values.topic || !Number.isInteger(partition) || !Number.isInteger(offset)) {
    process.stderr.write(`usage: ${DEADLETTER_USAGE}\n`);
    return 2;
  }
  try {
    const to = await redrive(kafka, codec, { topic: values.topic, partition, offset });
    say(`re-driven: ${values.topic}/${partition}@${offset} -> ${values.topic}/${partition}@${to}`);
    return 0;
  } catch (err) {
    // Nothing parked there, or re-driven already: the operator's mistake, said in one line.
    if (!(err instanceof BaseError) || err.retryable) throw err;
    process.stderr.write(`${err.shortMessage}\n`);
    return 1;
  }
}

function describe({ letter: l, redrivenTo }: Parked): string {
  const state = redrivenTo === null ? "parked" : `re-driven to @${redrivenTo}`;
  const at = new Date(l.at).toISOString();
  return `${l.topic}/${l.partition}@${l.offset}  ${state}  ${at}  by ${l.group}  ${l.errorCode}: ${l.errorMessage}`;
}
