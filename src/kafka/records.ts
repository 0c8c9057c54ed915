import type { SessionCommand } from "../domain/commands.ts";
import type { SessionEvent } from "../domain/events.ts";
import { KEY_KINDS, type MerchantCommand, type MerchantEvent } from "../domain/merchant/types.ts";
import {
  FLOWS,
  type Outcome,
  type RefundKind,
  type RefundStatus,
  STATUSES,
  type Transfer,
  UNSUPPORTED_REASONS,
} from "../domain/types.ts";
import type { SessionView } from "../domain/view.ts";
import * as f from "../record-fields/fields.ts";
import { message, union } from "../record-fields/unions.ts";
import { mandate } from "./subscription-records.ts";

/**
 * The value of every topic, defined once: each definition below is the TypeScript type (inferred,
 * or the domain's type it is checked against both ways), the runtime checks and the mapping to and
 * from its Avro schema in schemas/ (the public contract; src/kafka/codecs.ts compares the two when
 * it builds a codec). Keys are camelCase and the wire names their snake_case, unless `renamed`.
 * Adding a record to a topic: its `.avsc`, a definition here, a line in codecs.ts.
 */

type Avro = Record<string, unknown>;

// ---------------------------------------------------------------------------------------------------
// Parts shared by several records

const authorization = f.record({
  address: f.address,
  chainId: f.number,
  nonce: f.number,
  r: f.hex,
  s: f.hex,
  yParity: f.number,
});

/** A transfer on a chain of any family: its ids and addresses in that family's spelling. */
const transferFields = {
  chainId: f.number,
  token: f.chainAddress,
  amount: f.amount,
  txHash: f.txId,
  logIndex: f.number,
  blockNumber: f.blockNumber,
  blockHash: f.blockId,
  from: f.renamed("from_address", f.chainAddress),
};
const transfer: f.Field<Transfer, Avro> = f.record(transferFields);

/** The operator's terms for a transfer's token on its chain (src/domain/acceptance.ts). */
const depositTerms = f.record({ accepted: f.boolean, minAmount: f.amount });

/** The burner-signed settlement Intent (EIP-712 `Intent`, src/contracts/README.md). */
const intent = f.record({
  destChainId: f.number,
  destAddr: f.address,
  minOut: f.amount,
  /** Unix seconds. */
  deadline: f.number,
  salt: f.hex,
  inToken: f.address,
  maxIn: f.amount,
  appFeeBps: f.number,
  appFeeRecipient: f.address,
});

const replyTo = f.record({ gatewayId: f.string, correlationId: f.string });

const standingRefund = f.record({ to: f.address, deadline: f.number, signatures: f.map(f.hex) });

/** A burner-signed Refund (EIP-712 `Refund`) and its signature; the deadline in Unix seconds. */
const signedRefund = {
  token: f.address,
  to: f.address,
  amount: f.amount,
  deadline: f.number,
  salt: f.hex,
  signature: f.hex,
};

/** What a sweep took, swapped, charged and delivered (src/domain/types.ts, SweepAmounts). */
const sweepAmounts = {
  amountIn: f.amount,
  swapOutputAmount: f.amount,
  feeAmount: f.amount,
  appFeeAmount: f.amount,
  deliveredAmount: f.amount,
  bridged: f.boolean,
};

const commitment = { intent, signature: f.hex, sourceChainId: f.number, feeBps: f.number };

/** The chain's answer a refund is judged on (src/domain/commands.ts, ChainBalance). */
const onChain = f.nullable(f.record({ balance: f.amount, dustFloor: f.amount }));

/** What the relayer paid for a mined transaction (src/domain/types.ts, GasSpent). */
const gasSpentFields = { gasUsed: f.amount, feeWei: f.amount };
const gas = f.nullable(f.record(gasSpentFields));

const OUTCOMES = ["succeeded", "overpaid", "underpaid"] as const satisfies readonly Outcome[];
const REFUND_KINDS = ["refund", "refund_all"] as const satisfies readonly RefundKind[];
const REFUND_STATUSES = [
  "requested",
  "submitted",
  "confirmed",
  "failed",
] as const satisfies readonly RefundStatus[];

/** The creation data of CreateSession and SessionCreated (all but the session id). */
const creation = {
  flow: f.oneOf(FLOWS),
  merchantId: f.nullable(f.string),
  // null on a checkout session: registered later (RegisterBurner), resolved at detection.
  burner: f.nullable(f.chainAddress),
  // EVM-only: the burner's EIP-7702 authorization, the fee sink (Solana's is app_fee_recipient_sol
  // on the Session object), standing refunds (EIP-712) and stealth announcements (ERC-5564).
  auth: f.nullable(authorization),
  destAddress: f.nullable(f.string),
  destChainId: f.nullable(f.number),
  appFeeBps: f.number,
  appFeeRecipient: f.address,
  standingRefund: f.nullable(standingRefund),
  stealth: f.nullable(f.record({ ephemeralPubkey: f.hex, viewTag: f.number })),
  expiresAt: f.number,
  expectedAmount: f.nullable(f.amount),
  pinnedDestinations: f.array(
    f.record({ sourceChainId: f.number, destAddress: f.string, destChainId: f.number }),
  ),
  clientSecretHash: f.nullable(f.string),
};

// ---------------------------------------------------------------------------------------------------
// The session's topics: their TypeScript types are the domain's (src/domain/).

/** session.commands */
export const sessionCommand: f.Field<SessionCommand, Avro> = message({
  metadata: { commandId: f.string, issuedAt: f.number, replyTo: f.nullable(replyTo) },
  data: { sessionId: f.string },
  union: "command",
  types: {
    CreateSession: creation,
    RecordTransfer: { transfer, terms: f.nullable(depositTerms) },
    RetractTransfer: { chainId: f.number, txHash: f.txId, logIndex: f.number, blockHash: f.blockId },
    ExpireSession: { now: f.number },
    CommitIntent: commitment,
    AttachStandingRefund: { standingRefund },
    RequestRefund: { chainId: f.number, ...signedRefund, onChain },
    RequestRefundAll: { chainId: f.number, token: f.address, onChain },
    RegisterBurner: {
      burner: f.chainAddress,
      auth: authorization,
      standingRefund: f.nullable(standingRefund),
    },
  },
});

/** session.events: the journal. */
export const sessionEvent: f.Field<SessionEvent, Avro> = message({
  metadata: { sessionId: f.string, version: f.number, occurredAt: f.number, commandId: f.string },
  data: {},
  union: "event",
  types: {
    SessionCreated: creation,
    DepositObserved: { transfer },
    DepositRetracted: { chainId: f.number, txHash: f.txId, logIndex: f.number },
    SessionExpired: {},
    IntentCommitted: commitment,
    SweepSubmitted: { txHash: f.txId },
    SweepCompleted: { txHash: f.txId, ...sweepAmounts, outcome: f.oneOf(OUTCOMES) },
    BridgeCompleted: { txHash: f.txId, mintedAmount: f.amount },
    SettlementRetried: { errorMessage: f.string },
    SettlementFailed: { errorMessage: f.string },
    StandingRefundAttached: { standingRefund },
    RefundRequested: {
      id: f.string,
      kind: f.oneOf(REFUND_KINDS),
      chainId: f.number,
      token: f.address,
      to: f.address,
      amount: f.nullable(f.amount),
      depositsCovered: f.nullable(f.number),
    },
    RefundUpdated: {
      id: f.string,
      status: f.oneOf(REFUND_STATUSES),
      txHash: f.nullable(f.txId),
      errorMessage: f.nullable(f.string),
    },
    BurnerRegistered: { burner: f.chainAddress, auth: authorization },
    UnsupportedDepositObserved: { transfer, reason: f.oneOf(UNSUPPORTED_REASONS) },
    RelayerGasSpent: { chainId: f.number, txHash: f.txId, commandId: f.string, ...gasSpentFields },
  },
});

/** One transfer into the burner as the Session object lists it. */
const depositRow = {
  chain_id: f.number,
  token: f.chainAddress,
  amount: f.decimal,
  tx: f.txId,
  log_index: f.number,
  block_number: f.number,
};

/**
 * The interface's Session object (src/domain/view.ts): its keys are already the wire names. The
 * gateway's response schema is derived from it (jsonSchemaOf in src/gateway/schemas.ts).
 */
export const sessionObject = f.record({
  id: f.string,
  created_at: f.described("ISO 8601 UTC timestamp", f.string),
  updated_at: f.described("ISO 8601 UTC timestamp", f.string),
  burner_address: f.nullable(f.chainAddress),
  eip7702_auth: f.nullable(authorization),
  dest_address: f.nullable(f.string),
  dest_chain_id: f.nullable(f.number),
  app_fee_bps: f.number,
  app_fee_recipient: f.address,
  app_fee_recipient_sol: f.nullable(f.string),
  status: f.oneOf(STATUSES),
  outcome: f.nullable(f.oneOf(OUTCOMES)),
  flow: f.oneOf(FLOWS),
  expires_at: f.described("Unix seconds", f.number),
  source_chain_id: f.nullable(f.number),
  detected_token: f.nullable(f.chainAddress),
  detected_amount: f.described("decimal integer in token base units", f.nullable(f.decimal)),
  detected_tx: f.nullable(f.txId),
  sweep_tx: f.nullable(f.txId),
  swap_output_amount: f.nullable(f.decimal),
  fee_amount: f.nullable(f.decimal),
  bridge_amount: f.nullable(f.decimal),
  bridge_tx: f.nullable(f.txId),
  dest_tx: f.nullable(f.string),
  retry_count: f.number,
  error_message: f.nullable(f.string),
  deposits: f.array(f.record(depositRow)),
  fee_bps: f.described("platform fee resolved at commit", f.nullable(f.number)),
  expected_amount: f.nullable(f.decimal),
  settled_amount: f.nullable(f.decimal),
  app_fee_amount: f.nullable(f.decimal),
  merchant_id: f.described("set on checkout sessions", f.nullable(f.string)),
  refunds: f.array(
    f.record({
      id: f.string,
      kind: f.oneOf(REFUND_KINDS),
      chain_id: f.number,
      token: f.address,
      to: f.address,
      amount: f.described('decimal base units, or "full" for refund_all', f.string),
      tx_hash: f.nullable(f.txId),
      status: f.oneOf(REFUND_STATUSES),
      error_message: f.nullable(f.string),
    }),
  ),
  unsupported_deposits: f.described(
    "transfers the operator does not accept: never detected, refundable with a burner-signed refund",
    f.array(f.record({ ...depositRow, reason: f.oneOf(UNSUPPORTED_REASONS) })),
  ),
});
const session: f.Field<SessionView, Avro> = sessionObject;

// ---------------------------------------------------------------------------------------------------
// Records of our own: their TypeScript types are inferred from the definitions.

/** chain.transfers: the indexer's output, keyed by session id: a Transfer and where it was seen. */
export const transferObserved = f.record({
  sessionId: f.string,
  burner: f.chainAddress,
  ...transferFields,
  /** Depth of the block when published (>= the chain's confirmation setting). */
  confirmations: f.number,
  /** Unix ms. */
  observedAt: f.number,
  /** true: the block that carried this transfer was dropped by a reorg; undo the observation. */
  retracted: f.boolean,
  /**
   * The operator's terms for the token on this chain (its CHAINS entry) when the indexer saw it;
   * null on records written before the indexer attached them.
   */
  terms: f.nullable(depositTerms),
});
export type TransferObserved = f.Infer<typeof transferObserved>;

/** session.state: the Session object after each change, compacted by session id. */
export const sessionState = f.record({ version: f.number, session });
export type SessionStateRecord = f.Infer<typeof sessionState>;

/** gateway.replies: the owning actor's answer to a command a gateway waits on. */
export const gatewayReply = f.record({
  gatewayId: f.string,
  correlationId: f.string,
  /** HTTP status the gateway should answer with. */
  status: f.number,
  /** Rejection code, or null on success. */
  code: f.nullable(f.string),
  message: f.nullable(f.string),
  /** The session after the command (null when it does not exist). */
  session: f.nullable(sessionState),
});
export type GatewayReply = f.Infer<typeof gatewayReply>;

/** executor.commands: work for a chain's executor; `command.type` is the Avro union branch. */
export const executorCommand = f.record({
  /** Idempotency key: the executor submits each command id at most once. */
  commandId: f.string,
  /** Unix ms. */
  issuedAt: f.number,
  /** null for subscription charges. */
  sessionId: f.nullable(f.string),
  chainId: f.number,
  command: union({
    Sweep: { burner: f.address, token: f.address, amount: f.amount },
    Refund: { burner: f.address, ...signedRefund, auth: f.nullable(authorization) },
    RefundAll: {
      burner: f.address,
      token: f.address,
      to: f.address,
      deadline: f.number,
      signature: f.hex,
      auth: f.nullable(authorization),
    },
    Charge: { subscriptionId: f.string, periodIndex: f.number, token: f.address, amount: f.amount },
    Settle: { burner: f.address, auth: authorization, intent, signature: f.hex, feeBps: f.number },
    // Subscriptions (src/domain/subscription/): charged and canceled through SubscriptionManager.
    ChargeSubscription: {
      subscriptionId: f.string,
      manager: f.address,
      mandate,
      signature: f.hex,
      periodIndex: f.number,
      attempt: f.number,
      feeBps: f.number,
    },
    CancelMandate: { subscriptionId: f.string, manager: f.address, mandate, signature: f.hex },
  }),
});
export type ExecutorCommand = f.Infer<typeof executorCommand>;

/** executor.results: what became of an executor command. */
export const executorResult = f.record({
  commandId: f.string,
  sessionId: f.nullable(f.string),
  chainId: f.number,
  /** Unix ms. */
  occurredAt: f.number,
  result: union({
    TransactionSubmitted: { txHash: f.hex },
    TransactionConfirmed: { txHash: f.hex, blockNumber: f.blockNumber, gas },
    ExecutionFailed: { errorMessage: f.string, retryable: f.boolean, txHash: f.nullable(f.hex) },
    SweepConfirmed: { txHash: f.hex, blockNumber: f.blockNumber, ...sweepAmounts, swapped: f.boolean, gas },
    BridgeRelayed: {
      txHash: f.hex,
      blockNumber: f.blockNumber,
      destChainId: f.number,
      mintedAmount: f.amount,
      gas,
    },
  }),
});
export type ExecutorResult = f.Infer<typeof executorResult>;

/** webhook.events: one delivery for the webhook worker, keyed by merchant id. */
export const webhookEvent = f.record({
  /** Sent as the Idempotency-Key header; unique in the queue. */
  idempotencyKey: f.string,
  merchantId: f.string,
  /** The interface's event name, e.g. payment.detected. */
  eventType: f.string,
  sessionId: f.nullable(f.string),
  /** The JSON text to sign and send, byte for byte. */
  payload: f.string,
  /** Unix ms. */
  createdAt: f.number,
});
export type WebhookEvent = f.Infer<typeof webhookEvent>;

/** The webhook endpoint; `secret` (whsec_) null only in records written before it existed. */
const endpoint = { endpointId: f.string, url: f.string, secret: f.nullable(f.string) };

/** A merchant key as the journal keeps it: a secret key only as its hash. */
const issuedKeyFields = {
  keyId: f.string,
  kind: f.oneOf(KEY_KINDS),
  hash: f.string,
  publishable: f.nullable(f.string),
  hint: f.string,
};
const issuedKey = f.record(issuedKeyFields);

// The merchant's topics: their TypeScript types are the domain's (src/domain/merchant/).

const destinationPin = { sourceChainId: f.number, destAddress: f.string, destChainId: f.number };
const appFee = { bps: f.number, recipient: f.address };
const merchantSettings = { p2pPinnedDestinationsOnly: f.boolean };

/** merchant.commands: a command to one merchant's actor, keyed by merchant id. */
export const merchantCommand: f.Field<MerchantCommand, Avro> = message({
  metadata: { commandId: f.string, issuedAt: f.number, replyTo: f.nullable(replyTo) },
  data: { merchantId: f.string },
  union: "command",
  types: {
    SetWebhookEndpoint: endpoint,
    RemoveWebhookEndpoint: {},
    CreateMerchant: { name: f.string, email: f.string, keys: f.array(issuedKey) },
    IssueKeys: { keys: f.array(issuedKey) },
    RotateKey: { key: issuedKey, replaces: f.nullable(f.string) },
    RevokeKey: { keyId: f.string },
    PinDestination: destinationPin,
    SetAppFee: appFee,
    SetSettings: merchantSettings,
  },
});

/** merchant.events: the merchant journal, kept forever. */
export const merchantEvent: f.Field<MerchantEvent, Avro> = message({
  metadata: { merchantId: f.string, version: f.number, occurredAt: f.number, commandId: f.string },
  data: {},
  union: "event",
  types: {
    WebhookEndpointSet: endpoint,
    WebhookEndpointRemoved: {},
    MerchantCreated: { name: f.string, email: f.string },
    KeyIssued: issuedKeyFields,
    KeyRevoked: { keyId: f.string, hash: f.string },
    DestinationPinned: destinationPin,
    AppFeeSet: appFee,
    SettingsSet: merchantSettings,
  },
});

/**
 * deadletter: an input record parked after a terminal error (its bytes in base64, so any record of
 * any topic fits), or the note that an operator re-drove one (src/kafka/dead-letter.ts).
 */
export const deadLetter = f.record({
  kind: f.oneOf(["parked", "redriven"] as const),
  group: f.string,
  topic: f.string,
  partition: f.number,
  offset: f.number,
  key: f.nullable(f.string),
  value: f.nullable(f.string),
  headers: f.array(f.record({ name: f.string, value: f.nullable(f.string) })),
  errorCode: f.string,
  errorMessage: f.string,
  at: f.number,
  redrivenTo: f.nullable(f.number),
});
export type DeadLetter = f.Infer<typeof deadLetter>;
