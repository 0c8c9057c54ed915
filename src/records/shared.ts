import { FLOWS, type Outcome, type RefundKind, type RefundStatus, type Transfer } from "../domain/types.ts";
import * as f from "../record-fields/fields.ts";

/**
 * Field groups that several topics' records share. Each topic's value is defined once, in its own file
 * of this folder: the TypeScript type (inferred, or the domain's type it is checked against both ways),
 * the runtime checks and the mapping to and from its Avro schema in schemas/ (the public contract;
 * src/kafka/codecs.ts compares the two when it builds a codec). Keys are camelCase and the wire names
 * their snake_case, unless `renamed`. Adding a record to a topic: its `.avsc`, a file in this folder,
 * a line in codecs.ts.
 */

export type Avro = Record<string, unknown>;

export const authorization = f.record({
  address: f.address,
  chainId: f.number,
  nonce: f.number,
  r: f.hex,
  s: f.hex,
  yParity: f.number,
});

/** A transfer on a chain of any family: its ids and addresses in that family's spelling. */
export const transferFields = {
  chainId: f.number,
  token: f.chainAddress,
  amount: f.amount,
  txHash: f.txId,
  logIndex: f.number,
  blockNumber: f.blockNumber,
  blockHash: f.blockId,
  from: f.renamed("from_address", f.chainAddress),
};
export const transfer: f.Field<Transfer, Avro> = f.record(transferFields);

/** The operator's terms for a transfer's token on its chain (src/domain/acceptance.ts). */
export const depositTerms = f.record({ accepted: f.boolean, minAmount: f.amount });

/** The burner-signed settlement Intent (EIP-712 `Intent`, src/contracts/README.md). */
export const intent = f.record({
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

export const replyTo = f.record({ gatewayId: f.string, correlationId: f.string });

export const standingRefund = f.record({ to: f.address, deadline: f.number, signatures: f.map(f.hex) });

/** A burner-signed Refund (EIP-712 `Refund`) and its signature; the deadline in Unix seconds. */
export const signedRefund = {
  token: f.address,
  to: f.address,
  amount: f.amount,
  deadline: f.number,
  salt: f.hex,
  signature: f.hex,
};

/** What a sweep took, swapped, charged and delivered (src/domain/types.ts, SweepAmounts). */
export const sweepAmounts = {
  amountIn: f.amount,
  swapOutputAmount: f.amount,
  feeAmount: f.amount,
  appFeeAmount: f.amount,
  deliveredAmount: f.amount,
  bridged: f.boolean,
};

export const commitment = { intent, signature: f.hex, sourceChainId: f.number, feeBps: f.number };

/** The chain's answer a refund is judged on (src/domain/commands.ts, ChainBalance). */
export const onChain = f.nullable(f.record({ balance: f.amount, dustFloor: f.amount }));

/** What the relayer paid for a mined transaction (src/domain/types.ts, GasSpent). */
export const gasSpentFields = { gasUsed: f.amount, feeWei: f.amount };
export const gas = f.nullable(f.record(gasSpentFields));

export const OUTCOMES = ["succeeded", "overpaid", "underpaid"] as const satisfies readonly Outcome[];
export const REFUND_KINDS = [
  "refund",
  "refund_all",
  "bounce",
  "solana_refund",
] as const satisfies readonly RefundKind[];
export const REFUND_STATUSES = [
  "requested",
  "submitted",
  "confirmed",
  "failed",
] as const satisfies readonly RefundStatus[];

/** A Solana sweep's payments (src/domain/types.ts, SolanaSweepLeg). */
export const solanaSweepLegs = f.array(f.record({ to: f.chainAddress, amount: f.amount }));

/** A Solana-origin session's committed sweep (src/domain/types.ts, SolanaSweep). */
export const solanaSweep = {
  transaction: f.string,
  token: f.chainAddress,
  legs: solanaSweepLegs,
  feeBps: f.number,
  amountIn: f.amount,
  feeAmount: f.amount,
  appFeeAmount: f.amount,
  deliveredAmount: f.amount,
  bridged: f.boolean,
};

/** A merchant's destination for deposits found on one source chain (PUT /v1/destinations). */
export const pinnedDestination = f.record({
  sourceChainId: f.number,
  destAddress: f.string,
  destChainId: f.number,
});

/** A Flow D session's destination under one stealth scheme (src/domain/types.ts, StealthDestination). */
export const stealthDestination = f.record({
  scheme: f.string,
  ephemeralPubkey: f.string,
  viewTag: f.number,
  stealthAddress: f.chainAddress,
});

/** The creation data of CreateSession and SessionCreated (all but the session id). */
export const creation = {
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
  pinnedDestinations: f.array(pinnedDestination),
  clientSecretHash: f.nullable(f.string),
  // Solana-origin sessions (POST /sessions/solana); null on EVM sessions and older records.
  originChainId: f.nullable(f.number),
  appFeeRecipientSol: f.nullable(f.chainAddress),
  refundAddress: f.nullable(f.chainAddress),
  // Flow D (docs/STEALTH.md); null on every other session and in older records.
  stealthDestinations: f.nullable(f.array(stealthDestination)),
};
