import { type AnyField, type Field, type Infer, NAMESPACE } from "../record-fields/fields.ts";
import { matchSchema } from "../record-fields/match.ts";
import { transferObserved } from "../records/chain-transfers.ts";
import { deadLetter } from "../records/dead-letter.ts";
import { executorCommand } from "../records/executor-commands.ts";
import { executorResult } from "../records/executor-results.ts";
import { gatewayReply } from "../records/gateway-replies.ts";
import { linkCommand } from "../records/link-commands.ts";
import { linkEvent } from "../records/link-events.ts";
import { merchantCommand } from "../records/merchant-commands.ts";
import { merchantEvent } from "../records/merchant-events.ts";
import { sessionCommand } from "../records/session-commands.ts";
import { sessionEvent } from "../records/session-events.ts";
import { sessionState } from "../records/session-state.ts";
import { subscriptionCommand } from "../records/subscription-commands.ts";
import { subscriptionEvent } from "../records/subscription-events.ts";
import { webhookEvent } from "../records/webhook-events.ts";
import { AvroDecodeError, type AvroSerde, singleObjectWire, type WireFormat } from "./avro.ts";

/**
 * Typed codecs of every topic: the record definitions of src/records/ over an Avro wire format. After
 * decoding, the definition's checks cover what Avro cannot say (0x hex, addresses, decimal amounts,
 * the status and flow vocabularies). Encoding runs the same checks first, so nothing we write is
 * unreadable: a poison record on the journal would stop every future replay.
 */

export interface Codec<T> {
  encode(value: T): Buffer;
  /** Throws AvroDecodeError for bytes that are not a valid record of this kind. */
  decode(buf: Buffer): T;
  /**
   * decode without the checks, for bytes our own `encode` wrote (which ran them before writing):
   * the replay of the journal, where the checks cost more than the Avro decoding itself. Avro still
   * rejects bytes that are not a record of this schema.
   */
  decodeTrusted(buf: Buffer): T;
}

/** Every topic's record: the schema's simple name (in NAMESPACE) and the definition. */
const CONTRACTS = {
  sessionCommand: ["SessionCommand", sessionCommand],
  sessionEvent: ["SessionEvent", sessionEvent],
  transferObserved: ["TransferObserved", transferObserved],
  sessionState: ["SessionState", sessionState],
  gatewayReply: ["GatewayReply", gatewayReply],
  executorCommand: ["ExecutorCommand", executorCommand],
  executorResult: ["ExecutorResult", executorResult],
  webhookEvent: ["WebhookEvent", webhookEvent],
  merchantCommand: ["MerchantCommand", merchantCommand],
  merchantEvent: ["MerchantEvent", merchantEvent],
  subscriptionCommand: ["SubscriptionCommand", subscriptionCommand],
  subscriptionEvent: ["SubscriptionEvent", subscriptionEvent],
  linkCommand: ["LinkCommand", linkCommand],
  linkEvent: ["LinkEvent", linkEvent],
  deadLetter: ["DeadLetter", deadLetter],
} as const satisfies Record<string, readonly [string, AnyField]>;

type Contracts = typeof CONTRACTS;
export type Codecs = { [K in keyof Contracts]: Codec<Infer<Contracts[K][1]>> };

/** Throws when the definition and the `.avsc` differ, naming every difference. */
function codec<T>(serde: AvroSerde, def: Field<T, unknown>): Codec<T> {
  const name = serde.schema.name;
  const drift = matchSchema(def.shape, serde.schema.type.schema());
  if (drift.length > 0) {
    throw new Error(
      `${name}: its definition in src/records/ and schemas/${serde.schema.file} differ: ${drift.join("; ")}`,
    );
  }
  // Checks are synchronous, so one issues list, emptied before each check, serves every record of
  // this codec: no allocation per record.
  const issues: string[] = [];
  const checked = (avro: unknown, what: string): unknown => {
    issues.length = 0;
    def.check(avro, "", issues);
    if (issues.length > 0) throw new AvroDecodeError(`${what}: ${issues.join("; ")}`);
    return avro;
  };
  const cannotEncode = `cannot encode ${name}`;
  return {
    encode: (v) => serde.encode(checked(def.toAvro(v), cannotEncode)),
    decode: (buf) => def.fromAvro(checked(serde.decode(buf), name)),
    decodeTrusted: (buf) => def.fromAvro(serde.decode(buf)),
  };
}

/** The codecs over a wire format (today always single-object: singleObjectWire()). */
export function createCodecs(wire: WireFormat): Codecs {
  const out: Record<string, Codec<unknown>> = {};
  for (const [key, [schema, def]] of Object.entries(CONTRACTS)) {
    out[key] = codec(wire.serde(`${NAMESPACE}.${schema}`), def as Field<unknown, unknown>);
  }
  return out as Codecs;
}

/**
 * Single-object codecs over schemas/: reads the schema files and matches the definitions against
 * them, so a process builds them once at start (boot(), a CLI command, a worker thread, a test
 * file) and passes them to what it starts. Nothing here holds them.
 */
export const singleObjectCodecs = (): Codecs => createCodecs(singleObjectWire());
