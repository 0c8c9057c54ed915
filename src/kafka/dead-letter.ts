import type { IHeaders } from "kafkajs";
import { TOPIC } from "../../topics/catalogue.ts";
import type { DeadLetter } from "../records/dead-letter.ts";
import { BaseError, TerminalError } from "../support/errors.ts";
import { type KafkaClient, kafkajs } from "./client.ts";
import type { Codec } from "./codecs.ts";
import { type ReadRecord, readTopic } from "./topic-reader.ts";
import { stableEndOffsets } from "./topics.ts";
import type { OutgoingMessage } from "./transactions.ts";

/**
 * The dead-letter topic: where a consumer puts an input record it can never work (a terminal
 * error), so the partition behind it goes on. The record is kept byte for byte (key, value,
 * headers) with its origin and error; an operator re-drives it to its topic once the cause is
 * fixed (`deadletter redrive`). Re-driving writes the copy and a "redriven" note in one Kafka
 * transaction, so a parked record goes back once, however often the command is run.
 */

/** An error message is for a person reading the topic, not a dump: long ones are cut. */
const MAX_MESSAGE = 2000;

/** The dead-letter record of an input record, ready to send (the host adds it to its transaction). */
export function parkedMessage(
  codec: Codec<DeadLetter>,
  group: string,
  topic: string,
  record: ReadRecord,
  error: unknown,
  now: number = Date.now(),
): OutgoingMessage {
  const letter: DeadLetter = {
    kind: "parked",
    group,
    topic,
    partition: record.partition,
    offset: Number(record.offset),
    key: record.key ? record.key.toString("base64") : null,
    value: record.value ? record.value.toString("base64") : null,
    headers: headerList(record.headers),
    errorCode: error instanceof BaseError ? error.code : "unexpected_error",
    errorMessage: messageOf(error).slice(0, MAX_MESSAGE),
    at: now,
    redrivenTo: null,
  };
  return { key: record.key?.toString("utf8") ?? "", value: codec.encode(letter) };
}

/** A parked record as the operator sees it: the letter, and where its copy went if it was re-driven. */
export interface Parked {
  letter: DeadLetter;
  /** Offset of the letter on the dead-letter topic. */
  at: { partition: number; offset: bigint };
  redrivenTo: number | null;
}

/** Every parked record on the dead-letter topic, oldest first, each with its re-drive if any. */
export async function listParked(
  kafka: KafkaClient,
  codec: Codec<DeadLetter>,
  deadLetterTopic: string = TOPIC.deadLetter,
) {
  const ends = await stableEndOffsets(kafka, deadLetterTopic);
  const parked: Parked[] = [];
  const notes = new Map<string, number>();
  await readTopic(kafka, {
    topic: deadLetterTopic,
    from: new Map([...ends.keys()].map((p) => [p, 0n] as const)),
    until: ends,
    onBatch: (records) => {
      for (const r of records) {
        if (!r.value) continue;
        const letter = codec.decode(r.value);
        if (letter.kind === "redriven") notes.set(origin(letter), letter.redrivenTo ?? -1);
        else parked.push({ letter, at: { partition: r.partition, offset: r.offset }, redrivenTo: null });
      }
    },
  });
  for (const p of parked) p.redrivenTo = notes.get(origin(p.letter)) ?? null;
  return parked;
}

/** The parked record at (topic, partition, offset) is not on the dead-letter topic. */
export class NotParked extends TerminalError<"not_parked"> {
  override name = "NotParked";
  constructor(where: string) {
    super("not_parked", `no parked record at ${where}`);
  }
}

/** The parked record was re-driven already: it goes back once. */
export class AlreadyRedriven extends TerminalError<"already_redriven"> {
  override name = "AlreadyRedriven";
  constructor(where: string, to: number) {
    super("already_redriven", `${where} was re-driven already (to offset ${to})`);
  }
}

/**
 * Sends a parked record back to its topic and partition, with its key and headers, and notes it on
 * the dead-letter topic in the same transaction. The transactional id is the same for every
 * re-drive: opening it fences a concurrent one before the topic is read, so two operators cannot
 * both send the same record back. Answers the offset of the copy.
 */
export async function redrive(
  kafka: KafkaClient,
  codec: Codec<DeadLetter>,
  where: { topic: string; partition: number; offset: number },
  deadLetterTopic: string = TOPIC.deadLetter,
): Promise<number> {
  const name = `${where.topic}/${where.partition}@${where.offset}`;
  const producer = kafkajs(kafka).producer({
    transactionalId: `deadletter.redrive.${deadLetterTopic}`,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  try {
    // An empty transaction registers the id now (kafkajs waits for the first one): the fence.
    await (await producer.transaction()).abort();
    const found = (await listParked(kafka, codec, deadLetterTopic)).find(
      (p) => origin(p.letter) === origin(where),
    );
    if (!found) throw new NotParked(name);
    if (found.redrivenTo !== null) throw new AlreadyRedriven(name, found.redrivenTo);
    const { letter } = found;
    const t = await producer.transaction();
    try {
      const [sent] = await t.send({
        topic: letter.topic,
        acks: -1,
        messages: [
          {
            partition: letter.partition,
            key: letter.key === null ? null : Buffer.from(letter.key, "base64"),
            value: letter.value === null ? null : Buffer.from(letter.value, "base64"),
            headers: kafkaHeaders(letter.headers),
          },
        ],
      });
      const redrivenTo = Number(sent?.baseOffset ?? -1);
      const note: DeadLetter = {
        ...letter,
        kind: "redriven",
        group: "operator",
        key: null,
        value: null,
        headers: [],
        errorCode: "redriven",
        errorMessage: `re-driven to ${letter.topic}/${letter.partition}@${redrivenTo}`,
        at: Date.now(),
        redrivenTo,
      };
      await t.send({
        topic: deadLetterTopic,
        acks: -1,
        messages: [{ key: letter.key ? Buffer.from(letter.key, "base64") : null, value: codec.encode(note) }],
      });
      await t.commit();
      return redrivenTo;
    } catch (err) {
      await t.abort().catch(() => {});
      throw err;
    }
  } finally {
    await producer.disconnect().catch(() => {});
  }
}

const origin = (l: Pick<DeadLetter, "topic" | "partition" | "offset">) =>
  `${l.topic}/${l.partition}@${l.offset}`;

const messageOf = (error: unknown): string =>
  error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error);

/** kafkajs headers (a name may repeat, as an array) as the letter's flat list. */
function headerList(headers: IHeaders | undefined): DeadLetter["headers"] {
  const out: DeadLetter["headers"] = [];
  for (const [name, v] of Object.entries(headers ?? {})) {
    for (const one of Array.isArray(v) ? v : [v]) {
      out.push({ name, value: one === undefined ? null : Buffer.from(one).toString("base64") });
    }
  }
  return out;
}

function kafkaHeaders(list: DeadLetter["headers"]): IHeaders {
  const out: Record<string, Buffer[]> = {};
  for (const h of list) {
    if (h.value === null) continue;
    const values = out[h.name] ?? [];
    values.push(Buffer.from(h.value, "base64"));
    out[h.name] = values;
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, v.length === 1 ? v[0] : v]));
}
