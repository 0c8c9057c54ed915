import { z } from "zod";
import { TOPIC } from "../../topics/catalogue.ts";
import type { CommandMetadata, SessionCommand } from "../domain/commands.ts";
import type { EventMetadata, SessionCreated, SessionEvent } from "../domain/events.ts";
import {
  type Address,
  type Authorization,
  FLOWS,
  type Hex,
  STATUSES,
  type StandingRefund,
  type StealthAnnouncement,
  type Transfer,
} from "../domain/types.ts";
import type { SessionView } from "../domain/view.ts";
import { AvroDecodeError, type AvroSerde, singleObjectWire, type WireFormat } from "./avro.ts";
import type {
  ExecutorCommand,
  ExecutorResult,
  GatewayReply,
  MerchantCommand,
  MerchantEvent,
  SessionStateRecord,
  TransferObserved,
  WebhookEvent,
} from "./records.ts";

/**
 * Typed codecs between the TypeScript records and their Avro schemas (schemas/*.avsc): camelCase to
 * snake_case, bigint to decimal string, nullable fields to ["null", T] unions, tagged unions to Avro
 * unions of records. After decoding, zod checks what Avro cannot say (0x hex, addresses, decimal
 * amounts, the status and flow vocabularies). Encoding runs the same check first, so nothing we write
 * is unreadable: a poison record on the journal would stop every future replay.
 */

export interface Codec<T> {
  encode(value: T): Buffer;
  /** Throws AvroDecodeError for bytes that are not a valid record of this kind. */
  decode(buf: Buffer): T;
  /** decode, fetching an unknown registry schema id first when a registry is in use. */
  decodeAsync(buf: Buffer): Promise<T>;
  /**
   * decode without the zod checks, for bytes our own `encode` wrote (which ran them before writing):
   * the replay of the journal, where the checks cost more than the Avro decoding itself. Avro still
   * rejects bytes that are not a record of this schema.
   */
  decodeTrusted(buf: Buffer): T;
}

// ---------------------------------------------------------------------------------------------------
// Leaf checks: what the TypeScript types promise beyond "string" and "number".

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const HEX_RE = /^0x[0-9a-fA-F]*$/;
const DECIMAL_RE = /^[0-9]+$/;

const address = z.custom<Address>((v) => typeof v === "string" && ADDRESS_RE.test(v), "must be a 0x address");
const hex = z.custom<Hex>((v) => typeof v === "string" && HEX_RE.test(v), "must be 0x hex");
const decimal = z.string().regex(DECIMAL_RE, "must be a decimal integer string");
// avsc already guarantees integers for int and long; these only carry the type.
const int = z.number();
const nullable = <T extends z.ZodType>(t: T) => t.nullable();

const toDecimal = (v: bigint): string => v.toString();
/** Block numbers are Avro longs; a chain's block height stays far below 2^53. */
const toLong = (v: bigint): number => {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`${v} does not fit an Avro long read as a JS number`);
  return n;
};

// ---------------------------------------------------------------------------------------------------
// Shared records

const authorizationAvro = z.object({
  address,
  chain_id: int,
  nonce: int,
  r: hex,
  s: hex,
  y_parity: int,
});
type AuthorizationAvro = z.infer<typeof authorizationAvro>;

const authorizationToAvro = (a: Authorization): AuthorizationAvro => ({
  address: a.address,
  chain_id: a.chainId,
  nonce: a.nonce,
  r: a.r,
  s: a.s,
  y_parity: a.yParity,
});
const authorizationFromAvro = (a: AuthorizationAvro): Authorization => ({
  address: a.address,
  chainId: a.chain_id,
  nonce: a.nonce,
  r: a.r,
  s: a.s,
  yParity: a.y_parity,
});

const standingRefundAvro = z.object({ to: address, deadline: int, signatures: z.record(z.string(), hex) });
// StandingRefund's fields already have their wire names.
const standingRefundFromAvro = (r: z.infer<typeof standingRefundAvro>): StandingRefund => ({
  to: r.to,
  deadline: r.deadline,
  signatures: { ...r.signatures },
});

const stealthAvro = z.object({ ephemeral_pubkey: hex, view_tag: int });
const stealthToAvro = (s: StealthAnnouncement): z.infer<typeof stealthAvro> => ({
  ephemeral_pubkey: s.ephemeralPubkey,
  view_tag: s.viewTag,
});
const stealthFromAvro = (s: z.infer<typeof stealthAvro>): StealthAnnouncement => ({
  ephemeralPubkey: s.ephemeral_pubkey,
  viewTag: s.view_tag,
});

const transferAvro = z.object({
  chain_id: int,
  token: address,
  amount: decimal,
  tx_hash: hex,
  log_index: int,
  block_number: int,
  block_hash: hex,
  from_address: address,
});
type TransferAvro = z.infer<typeof transferAvro>;
const transferToAvro = (t: Transfer): TransferAvro => ({
  chain_id: t.chainId,
  token: t.token,
  amount: toDecimal(t.amount),
  tx_hash: t.txHash,
  log_index: t.logIndex,
  block_number: toLong(t.blockNumber),
  block_hash: t.blockHash,
  from_address: t.from,
});
const transferFromAvro = (t: TransferAvro): Transfer => ({
  chainId: t.chain_id,
  token: t.token,
  amount: BigInt(t.amount),
  txHash: t.tx_hash,
  logIndex: t.log_index,
  blockNumber: BigInt(t.block_number),
  blockHash: t.block_hash,
  from: t.from_address,
});

/** The creation data shared by CreateSession and SessionCreated (all but the session id). */
const creationAvro = z.object({
  flow: z.enum(FLOWS),
  merchant_id: nullable(z.string()),
  burner: address,
  auth: authorizationAvro,
  dest_address: z.string(),
  dest_chain_id: int,
  app_fee_bps: int,
  app_fee_recipient: address,
  standing_refund: nullable(standingRefundAvro),
  stealth: nullable(stealthAvro),
  expires_at: int,
});
type CreationAvro = z.infer<typeof creationAvro>;
type Creation = SessionCreated["data"];

const creationToAvro = (d: Creation): CreationAvro => ({
  flow: d.flow,
  merchant_id: d.merchantId,
  burner: d.burner,
  auth: authorizationToAvro(d.auth),
  dest_address: d.destAddress,
  dest_chain_id: d.destChainId,
  app_fee_bps: d.appFeeBps,
  app_fee_recipient: d.appFeeRecipient,
  standing_refund: d.standingRefund,
  stealth: d.stealth && stealthToAvro(d.stealth),
  expires_at: d.expiresAt,
});
const creationFromAvro = (d: CreationAvro): Creation => ({
  flow: d.flow,
  merchantId: d.merchant_id,
  burner: d.burner,
  auth: authorizationFromAvro(d.auth),
  destAddress: d.dest_address,
  destChainId: d.dest_chain_id,
  appFeeBps: d.app_fee_bps,
  appFeeRecipient: d.app_fee_recipient,
  standingRefund: d.standing_refund && standingRefundFromAvro(d.standing_refund),
  stealth: d.stealth && stealthFromAvro(d.stealth),
  expiresAt: d.expires_at,
});

/** avsc represents an ambiguous union as an object with one key, the branch's full name. */
function onlyBranch(union: object, schema: string): never {
  throw new AvroDecodeError(`${schema}: union value has no known branch (${Object.keys(union).join(", ")})`);
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const r = schema.safeParse(value);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    throw new AvroDecodeError(`${what}: ${issues}`);
  }
  return r.data;
}

/** Validates on the way out too: what we write must be what we can read back. */
function codec<T, A extends z.ZodType>(
  serde: AvroSerde,
  avroSchema: A,
  toAvro: (v: T) => z.input<A>,
  fromAvro: (a: z.output<A>) => T,
): Codec<T> {
  const name = serde.schema.name;
  return {
    encode: (v) => serde.encode(parseOrThrow(avroSchema, toAvro(v), `cannot encode ${name}`)),
    decode: (buf) => fromAvro(parseOrThrow(avroSchema, serde.decode(buf), name)),
    decodeAsync: async (buf) => fromAvro(parseOrThrow(avroSchema, await serde.decodeAsync(buf), name)),
    decodeTrusted: (buf) => fromAvro(serde.decode(buf) as z.output<A>),
  };
}

// ---------------------------------------------------------------------------------------------------
// SessionCommand

const sessionCommandAvro = z.object({
  command_id: z.string(),
  issued_at: int,
  reply_to: nullable(z.object({ gateway_id: z.string(), correlation_id: z.string() })),
  session_id: z.string(),
  command: z.object({
    "settlement.v1.CreateSession": creationAvro.optional(),
    "settlement.v1.RecordTransfer": z.object({ transfer: transferAvro }).optional(),
    "settlement.v1.RetractTransfer": z
      .object({ chain_id: int, tx_hash: hex, log_index: int, block_hash: hex })
      .optional(),
    "settlement.v1.ExpireSession": z.object({ now: int }).optional(),
  }),
});
type SessionCommandAvro = z.infer<typeof sessionCommandAvro>;

function sessionCommandToAvro(c: SessionCommand): z.input<typeof sessionCommandAvro> {
  const m = c.metadata;
  const envelope = {
    command_id: m.commandId,
    issued_at: m.issuedAt,
    reply_to: m.replyTo && { gateway_id: m.replyTo.gatewayId, correlation_id: m.replyTo.correlationId },
    session_id: c.data.sessionId,
  };
  switch (c.type) {
    case "CreateSession": {
      const { sessionId: _, ...creation } = c.data;
      return { ...envelope, command: { "settlement.v1.CreateSession": creationToAvro(creation) } };
    }
    case "RecordTransfer":
      return {
        ...envelope,
        command: { "settlement.v1.RecordTransfer": { transfer: transferToAvro(c.data.transfer) } },
      };
    case "RetractTransfer": {
      const d = c.data;
      const retract = {
        chain_id: d.chainId,
        tx_hash: d.txHash,
        log_index: d.logIndex,
        block_hash: d.blockHash,
      };
      return { ...envelope, command: { "settlement.v1.RetractTransfer": retract } };
    }
    case "ExpireSession":
      return { ...envelope, command: { "settlement.v1.ExpireSession": { now: c.data.now } } };
    default:
      return c satisfies never;
  }
}

function sessionCommandFromAvro(a: SessionCommandAvro): SessionCommand {
  const metadata: CommandMetadata = {
    commandId: a.command_id,
    issuedAt: a.issued_at,
    replyTo: a.reply_to && { gatewayId: a.reply_to.gateway_id, correlationId: a.reply_to.correlation_id },
  };
  const sessionId = a.session_id;
  const u = a.command;
  const create = u["settlement.v1.CreateSession"];
  if (create) return { type: "CreateSession", data: { sessionId, ...creationFromAvro(create) }, metadata };
  const record = u["settlement.v1.RecordTransfer"];
  if (record) {
    return {
      type: "RecordTransfer",
      data: { sessionId, transfer: transferFromAvro(record.transfer) },
      metadata,
    };
  }
  const retract = u["settlement.v1.RetractTransfer"];
  if (retract) {
    const data = {
      sessionId,
      chainId: retract.chain_id,
      txHash: retract.tx_hash,
      logIndex: retract.log_index,
      blockHash: retract.block_hash,
    };
    return { type: "RetractTransfer", data, metadata };
  }
  const expire = u["settlement.v1.ExpireSession"];
  if (expire) return { type: "ExpireSession", data: { sessionId, now: expire.now }, metadata };
  return onlyBranch(u, "SessionCommand.command");
}

// ---------------------------------------------------------------------------------------------------
// SessionEvent

const sessionEventAvro = z.object({
  session_id: z.string(),
  version: int,
  occurred_at: int,
  command_id: z.string(),
  event: z.object({
    "settlement.v1.SessionCreated": creationAvro.optional(),
    "settlement.v1.DepositObserved": z.object({ transfer: transferAvro }).optional(),
    "settlement.v1.DepositRetracted": z.object({ chain_id: int, tx_hash: hex, log_index: int }).optional(),
    "settlement.v1.SessionExpired": z.object({}).optional(),
  }),
});
type SessionEventAvro = z.infer<typeof sessionEventAvro>;

function sessionEventToAvro(e: SessionEvent): z.input<typeof sessionEventAvro> {
  const m = e.metadata;
  const envelope = {
    session_id: m.sessionId,
    version: m.version,
    occurred_at: m.occurredAt,
    command_id: m.commandId,
  };
  switch (e.type) {
    case "SessionCreated":
      return { ...envelope, event: { "settlement.v1.SessionCreated": creationToAvro(e.data) } };
    case "DepositObserved":
      return {
        ...envelope,
        event: { "settlement.v1.DepositObserved": { transfer: transferToAvro(e.data.transfer) } },
      };
    case "DepositRetracted": {
      const d = e.data;
      const retracted = { chain_id: d.chainId, tx_hash: d.txHash, log_index: d.logIndex };
      return { ...envelope, event: { "settlement.v1.DepositRetracted": retracted } };
    }
    case "SessionExpired":
      return { ...envelope, event: { "settlement.v1.SessionExpired": {} } };
    default:
      return e satisfies never;
  }
}

function sessionEventFromAvro(a: SessionEventAvro): SessionEvent {
  const metadata: EventMetadata = {
    sessionId: a.session_id,
    version: a.version,
    occurredAt: a.occurred_at,
    commandId: a.command_id,
  };
  const u = a.event;
  const created = u["settlement.v1.SessionCreated"];
  if (created) return { type: "SessionCreated", data: creationFromAvro(created), metadata };
  const observed = u["settlement.v1.DepositObserved"];
  if (observed)
    return { type: "DepositObserved", data: { transfer: transferFromAvro(observed.transfer) }, metadata };
  const retracted = u["settlement.v1.DepositRetracted"];
  if (retracted) {
    const data = { chainId: retracted.chain_id, txHash: retracted.tx_hash, logIndex: retracted.log_index };
    return { type: "DepositRetracted", data, metadata };
  }
  if (u["settlement.v1.SessionExpired"]) return { type: "SessionExpired", data: {}, metadata };
  return onlyBranch(u, "SessionEvent.event");
}

// ---------------------------------------------------------------------------------------------------
// TransferObserved

const transferObservedAvro = z.object({
  session_id: z.string(),
  burner: address,
  ...transferAvro.shape,
  confirmations: int,
  observed_at: int,
  retracted: z.boolean(),
});

const transferObservedToAvro = (t: TransferObserved): z.input<typeof transferObservedAvro> => ({
  session_id: t.sessionId,
  burner: t.burner,
  ...transferToAvro(t),
  confirmations: t.confirmations,
  observed_at: t.observedAt,
  retracted: t.retracted,
});
const transferObservedFromAvro = (a: z.output<typeof transferObservedAvro>): TransferObserved => ({
  sessionId: a.session_id,
  burner: a.burner,
  ...transferFromAvro(a),
  confirmations: a.confirmations,
  observedAt: a.observed_at,
  retracted: a.retracted,
});

// ---------------------------------------------------------------------------------------------------
// SessionState (and GatewayReply, which carries one)

const sessionViewAvro = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  burner_address: address,
  eip7702_auth: authorizationAvro,
  dest_address: z.string(),
  dest_chain_id: int,
  app_fee_bps: int,
  app_fee_recipient: address,
  app_fee_recipient_sol: nullable(z.string()),
  status: z.enum(STATUSES),
  outcome: nullable(z.enum(["succeeded", "overpaid", "underpaid"])),
  flow: z.enum(FLOWS),
  expires_at: int,
  source_chain_id: nullable(int),
  detected_token: nullable(address),
  detected_amount: nullable(decimal),
  detected_tx: nullable(hex),
  sweep_tx: nullable(hex),
  swap_output_amount: nullable(decimal),
  fee_amount: nullable(decimal),
  bridge_amount: nullable(decimal),
  bridge_tx: nullable(hex),
  dest_tx: nullable(z.string()),
  retry_count: int,
  error_message: nullable(z.string()),
  deposits: z.array(
    z.object({ chain_id: int, token: address, amount: decimal, tx: hex, log_index: int, block_number: int }),
  ),
});
const sessionStateAvro = z.object({ version: int, session: sessionViewAvro });
type SessionStateAvro = z.infer<typeof sessionStateAvro>;

// The view already has its wire names; only the authorization is camelCase in the interface.
const sessionStateToAvro = (r: SessionStateRecord): SessionStateAvro => ({
  version: r.version,
  session: { ...r.session, eip7702_auth: authorizationToAvro(r.session.eip7702_auth) },
});
const sessionStateFromAvro = (a: SessionStateAvro): SessionStateRecord => ({
  version: a.version,
  session: {
    ...a.session,
    eip7702_auth: authorizationFromAvro(a.session.eip7702_auth),
    // Plain objects, not avsc's record instances (decodeTrusted hands over what avsc built).
    deposits: a.session.deposits.map((d) => ({ ...d })),
  } satisfies SessionView,
});

const gatewayReplyAvro = z.object({
  gateway_id: z.string(),
  correlation_id: z.string(),
  status: int,
  code: nullable(z.string()),
  message: nullable(z.string()),
  session: nullable(sessionStateAvro),
});

const gatewayReplyToAvro = (r: GatewayReply): z.input<typeof gatewayReplyAvro> => ({
  gateway_id: r.gatewayId,
  correlation_id: r.correlationId,
  status: r.status,
  code: r.code,
  message: r.message,
  session: r.session && sessionStateToAvro(r.session),
});
const gatewayReplyFromAvro = (a: z.output<typeof gatewayReplyAvro>): GatewayReply => ({
  gatewayId: a.gateway_id,
  correlationId: a.correlation_id,
  status: a.status,
  code: a.code,
  message: a.message,
  session: a.session && sessionStateFromAvro(a.session),
});

// ---------------------------------------------------------------------------------------------------
// ExecutorCommand, ExecutorResult, WebhookEvent, MerchantCommand, MerchantEvent: their TypeScript
// shape is the Avro record's, camelCase, with each union branch tagged by `type` (its record name).

/** The one branch of an avsc union value, as `{ type, ...fields }`. */
function branchOf<T extends object>(union: Partial<Record<string, T>>, what: string): T & { type: string } {
  for (const [name, value] of Object.entries(union)) {
    if (value) return { ...value, type: name.slice(name.lastIndexOf(".") + 1) };
  }
  return onlyBranch(union, what);
}
const wrap = <T>(type: string, value: T) => ({ [`settlement.v1.${type}`]: value });

const sweepAvro = z.object({ burner: address, token: address, amount: decimal });
const refundAvro = z.object({
  burner: address,
  token: address,
  to: address,
  amount: decimal,
  deadline: int,
  salt: hex,
  signature: hex,
});
const refundAllAvro = z.object({
  burner: address,
  token: address,
  to: address,
  deadline: int,
  signature: hex,
});
const chargeAvro = z.object({
  subscription_id: z.string(),
  period_index: int,
  token: address,
  amount: decimal,
});
const executorCommandAvro = z.object({
  command_id: z.string(),
  issued_at: int,
  session_id: nullable(z.string()),
  chain_id: int,
  command: z.object({
    "settlement.v1.Sweep": sweepAvro.optional(),
    "settlement.v1.Refund": refundAvro.optional(),
    "settlement.v1.RefundAll": refundAllAvro.optional(),
    "settlement.v1.Charge": chargeAvro.optional(),
  }),
});
type ExecutorCommandAvro = z.output<typeof executorCommandAvro>;

function executorWorkToAvro(w: ExecutorCommand["command"]): ExecutorCommandAvro["command"] {
  switch (w.type) {
    case "Sweep":
      return wrap(w.type, { burner: w.burner, token: w.token, amount: toDecimal(w.amount) });
    case "Refund": {
      const { type: _, amount, ...rest } = w;
      return wrap(w.type, { ...rest, amount: toDecimal(amount) });
    }
    case "RefundAll": {
      const { type: _, ...rest } = w;
      return wrap(w.type, rest);
    }
    case "Charge": {
      const charge = {
        subscription_id: w.subscriptionId,
        period_index: w.periodIndex,
        token: w.token,
        amount: toDecimal(w.amount),
      };
      return wrap(w.type, charge);
    }
    default:
      return w satisfies never;
  }
}

function executorWorkFromAvro(u: ExecutorCommandAvro["command"]): ExecutorCommand["command"] {
  const sweep = u["settlement.v1.Sweep"];
  if (sweep) return { type: "Sweep", ...sweep, amount: BigInt(sweep.amount) };
  const refund = u["settlement.v1.Refund"];
  if (refund) return { type: "Refund", ...refund, amount: BigInt(refund.amount) };
  const all = u["settlement.v1.RefundAll"];
  if (all) return { type: "RefundAll", ...all };
  const c = u["settlement.v1.Charge"];
  if (c) {
    const amount = BigInt(c.amount);
    return {
      type: "Charge",
      subscriptionId: c.subscription_id,
      periodIndex: c.period_index,
      token: c.token,
      amount,
    };
  }
  return onlyBranch(u, "ExecutorCommand.command");
}

const executorCommandToAvro = (c: ExecutorCommand): ExecutorCommandAvro => ({
  command_id: c.commandId,
  issued_at: c.issuedAt,
  session_id: c.sessionId,
  chain_id: c.chainId,
  command: executorWorkToAvro(c.command),
});
const executorCommandFromAvro = (a: ExecutorCommandAvro): ExecutorCommand => ({
  commandId: a.command_id,
  issuedAt: a.issued_at,
  sessionId: a.session_id,
  chainId: a.chain_id,
  command: executorWorkFromAvro(a.command),
});

const executorResultAvro = z.object({
  command_id: z.string(),
  session_id: nullable(z.string()),
  chain_id: int,
  occurred_at: int,
  result: z.object({
    "settlement.v1.TransactionSubmitted": z.object({ tx_hash: hex }).optional(),
    "settlement.v1.TransactionConfirmed": z.object({ tx_hash: hex, block_number: int }).optional(),
    "settlement.v1.ExecutionFailed": z
      .object({ error_message: z.string(), retryable: z.boolean(), tx_hash: nullable(hex) })
      .optional(),
  }),
});
type ExecutorResultAvro = z.output<typeof executorResultAvro>;

function outcomeToAvro(r: ExecutorResult["result"]): ExecutorResultAvro["result"] {
  switch (r.type) {
    case "TransactionSubmitted":
      return wrap(r.type, { tx_hash: r.txHash });
    case "TransactionConfirmed":
      return wrap(r.type, { tx_hash: r.txHash, block_number: toLong(r.blockNumber) });
    case "ExecutionFailed":
      return wrap(r.type, { error_message: r.errorMessage, retryable: r.retryable, tx_hash: r.txHash });
    default:
      return r satisfies never;
  }
}

function outcomeFromAvro(u: ExecutorResultAvro["result"]): ExecutorResult["result"] {
  const submitted = u["settlement.v1.TransactionSubmitted"];
  if (submitted) return { type: "TransactionSubmitted", txHash: submitted.tx_hash };
  const confirmed = u["settlement.v1.TransactionConfirmed"];
  if (confirmed) {
    const blockNumber = BigInt(confirmed.block_number);
    return { type: "TransactionConfirmed", txHash: confirmed.tx_hash, blockNumber };
  }
  const f = u["settlement.v1.ExecutionFailed"];
  if (f)
    return {
      type: "ExecutionFailed",
      errorMessage: f.error_message,
      retryable: f.retryable,
      txHash: f.tx_hash,
    };
  return onlyBranch(u, "ExecutorResult.result");
}

const executorResultToAvro = (r: ExecutorResult): ExecutorResultAvro => ({
  command_id: r.commandId,
  session_id: r.sessionId,
  chain_id: r.chainId,
  occurred_at: r.occurredAt,
  result: outcomeToAvro(r.result),
});
const executorResultFromAvro = (a: ExecutorResultAvro): ExecutorResult => ({
  commandId: a.command_id,
  sessionId: a.session_id,
  chainId: a.chain_id,
  occurredAt: a.occurred_at,
  result: outcomeFromAvro(a.result),
});

const webhookEventAvro = z.object({
  idempotency_key: z.string(),
  merchant_id: z.string(),
  event_type: z.string(),
  session_id: nullable(z.string()),
  payload: z.string(),
  created_at: int,
});
const webhookEventToAvro = (w: WebhookEvent): z.output<typeof webhookEventAvro> => ({
  idempotency_key: w.idempotencyKey,
  merchant_id: w.merchantId,
  event_type: w.eventType,
  session_id: w.sessionId,
  payload: w.payload,
  created_at: w.createdAt,
});
const webhookEventFromAvro = (a: z.output<typeof webhookEventAvro>): WebhookEvent => ({
  idempotencyKey: a.idempotency_key,
  merchantId: a.merchant_id,
  eventType: a.event_type,
  sessionId: a.session_id,
  payload: a.payload,
  createdAt: a.created_at,
});

const endpointAvro = z.object({ endpoint_id: z.string(), url: z.string() });
const merchantCommandAvro = z.object({
  command_id: z.string(),
  issued_at: int,
  reply_to: nullable(z.object({ gateway_id: z.string(), correlation_id: z.string() })),
  merchant_id: z.string(),
  command: z.object({
    "settlement.v1.SetWebhookEndpoint": endpointAvro.optional(),
    "settlement.v1.RemoveWebhookEndpoint": z.object({}).optional(),
  }),
});
type MerchantCommandAvro = z.output<typeof merchantCommandAvro>;
const merchantCommandToAvro = (c: MerchantCommand): MerchantCommandAvro => ({
  command_id: c.commandId,
  issued_at: c.issuedAt,
  reply_to: c.replyTo && { gateway_id: c.replyTo.gatewayId, correlation_id: c.replyTo.correlationId },
  merchant_id: c.merchantId,
  command:
    c.command.type === "SetWebhookEndpoint"
      ? wrap(c.command.type, { endpoint_id: c.command.endpointId, url: c.command.url })
      : wrap(c.command.type, {}),
});
function merchantCommandFromAvro(a: MerchantCommandAvro): MerchantCommand {
  const set = a.command["settlement.v1.SetWebhookEndpoint"];
  const command: MerchantCommand["command"] = set
    ? { type: "SetWebhookEndpoint", endpointId: set.endpoint_id, url: set.url }
    : { type: branchOf(a.command, "MerchantCommand.command").type as "RemoveWebhookEndpoint" };
  return {
    commandId: a.command_id,
    issuedAt: a.issued_at,
    replyTo: a.reply_to && { gatewayId: a.reply_to.gateway_id, correlationId: a.reply_to.correlation_id },
    merchantId: a.merchant_id,
    command,
  };
}

const merchantEventAvro = z.object({
  merchant_id: z.string(),
  version: int,
  occurred_at: int,
  command_id: z.string(),
  event: z.object({
    "settlement.v1.WebhookEndpointSet": endpointAvro.optional(),
    "settlement.v1.WebhookEndpointRemoved": z.object({}).optional(),
  }),
});
type MerchantEventAvro = z.output<typeof merchantEventAvro>;
const merchantEventToAvro = (e: MerchantEvent): MerchantEventAvro => ({
  merchant_id: e.merchantId,
  version: e.version,
  occurred_at: e.occurredAt,
  command_id: e.commandId,
  event:
    e.event.type === "WebhookEndpointSet"
      ? wrap(e.event.type, { endpoint_id: e.event.endpointId, url: e.event.url })
      : wrap(e.event.type, {}),
});
function merchantEventFromAvro(a: MerchantEventAvro): MerchantEvent {
  const set = a.event["settlement.v1.WebhookEndpointSet"];
  const event: MerchantEvent["event"] = set
    ? { type: "WebhookEndpointSet", endpointId: set.endpoint_id, url: set.url }
    : { type: branchOf(a.event, "MerchantEvent.event").type as "WebhookEndpointRemoved" };
  return {
    merchantId: a.merchant_id,
    version: a.version,
    occurredAt: a.occurred_at,
    commandId: a.command_id,
    event,
  };
}

// ---------------------------------------------------------------------------------------------------
// Wiring

export interface Codecs {
  sessionCommand: Codec<SessionCommand>;
  sessionEvent: Codec<SessionEvent>;
  transferObserved: Codec<TransferObserved>;
  sessionState: Codec<SessionStateRecord>;
  gatewayReply: Codec<GatewayReply>;
  executorCommand: Codec<ExecutorCommand>;
  executorResult: Codec<ExecutorResult>;
  webhookEvent: Codec<WebhookEvent>;
  merchantCommand: Codec<MerchantCommand>;
  merchantEvent: Codec<MerchantEvent>;
}

/** The codecs over a wire format (single-object by default, or the registry's: see createWireFormat). */
export function createCodecs(wire: WireFormat): Codecs {
  const serde = (schema: string, topic: string) => wire.serde(`settlement.v1.${schema}`, topic);
  return {
    sessionCommand: codec(
      serde("SessionCommand", TOPIC.sessionCommands),
      sessionCommandAvro,
      sessionCommandToAvro,
      sessionCommandFromAvro,
    ),
    sessionEvent: codec(
      serde("SessionEvent", TOPIC.sessionEvents),
      sessionEventAvro,
      sessionEventToAvro,
      sessionEventFromAvro,
    ),
    transferObserved: codec(
      serde("TransferObserved", TOPIC.chainTransfers),
      transferObservedAvro,
      transferObservedToAvro,
      transferObservedFromAvro,
    ),
    sessionState: codec(
      serde("SessionState", TOPIC.sessionState),
      sessionStateAvro,
      sessionStateToAvro,
      sessionStateFromAvro,
    ),
    gatewayReply: codec(
      serde("GatewayReply", TOPIC.gatewayReplies),
      gatewayReplyAvro,
      gatewayReplyToAvro,
      gatewayReplyFromAvro,
    ),
    executorCommand: codec(
      serde("ExecutorCommand", TOPIC.executorCommands),
      executorCommandAvro,
      executorCommandToAvro,
      executorCommandFromAvro,
    ),
    executorResult: codec(
      serde("ExecutorResult", TOPIC.executorResults),
      executorResultAvro,
      executorResultToAvro,
      executorResultFromAvro,
    ),
    webhookEvent: codec(
      serde("WebhookEvent", TOPIC.webhookEvents),
      webhookEventAvro,
      webhookEventToAvro,
      webhookEventFromAvro,
    ),
    merchantCommand: codec(
      serde("MerchantCommand", TOPIC.merchantCommands),
      merchantCommandAvro,
      merchantCommandToAvro,
      merchantCommandFromAvro,
    ),
    merchantEvent: codec(
      serde("MerchantEvent", TOPIC.merchantEvents),
      merchantEventAvro,
      merchantEventToAvro,
      merchantEventFromAvro,
    ),
  };
}

let defaults: Codecs | undefined;
/** Single-object codecs over schemas/, built on first use (reading the schema files once). */
const defaultCodecs = (): Codecs => {
  defaults ??= createCodecs(singleObjectWire());
  return defaults;
};

const lazyCodec = <T>(get: () => Codec<T>): Codec<T> => ({
  encode: (v) => get().encode(v),
  decode: (b) => get().decode(b),
  decodeAsync: (b) => get().decodeAsync(b),
  decodeTrusted: (b) => get().decodeTrusted(b),
});

export const sessionCommandCodec = lazyCodec(() => defaultCodecs().sessionCommand);
export const sessionEventCodec = lazyCodec(() => defaultCodecs().sessionEvent);
export const transferObservedCodec = lazyCodec(() => defaultCodecs().transferObserved);
export const sessionStateCodec = lazyCodec(() => defaultCodecs().sessionState);
export const gatewayReplyCodec = lazyCodec(() => defaultCodecs().gatewayReply);
export const executorCommandCodec = lazyCodec(() => defaultCodecs().executorCommand);
export const executorResultCodec = lazyCodec(() => defaultCodecs().executorResult);
export const webhookEventCodec = lazyCodec(() => defaultCodecs().webhookEvent);
export const merchantCommandCodec = lazyCodec(() => defaultCodecs().merchantCommand);
export const merchantEventCodec = lazyCodec(() => defaultCodecs().merchantEvent);
