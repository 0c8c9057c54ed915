import type { SessionEvent } from "../domain/events.ts";
import { FINALITIES, UNSUPPORTED_REASONS } from "../domain/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import {
  type Avro,
  authorization,
  commitment,
  creation,
  gasSpentFields,
  OUTCOMES,
  REFUND_KINDS,
  REFUND_STATUSES,
  solanaSweep,
  standingRefund,
  sweepAmounts,
  transfer,
} from "./shared.ts";

/** session.events: the journal. */
export const sessionEvent: f.Field<SessionEvent, Avro> = message({
  metadata: { sessionId: f.string, version: f.number, occurredAt: f.number, commandId: f.string },
  data: {},
  union: "event",
  types: {
    SessionCreated: creation,
    DepositObserved: { transfer, finality: f.nullable(f.oneOf(FINALITIES)) },
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
      // A bounce's are a Solana mint and a base58 address.
      token: f.chainAddress,
      to: f.chainAddress,
      amount: f.nullable(f.amount),
      depositsCovered: f.nullable(f.number),
    },
    RefundUpdated: {
      id: f.string,
      status: f.oneOf(REFUND_STATUSES),
      txHash: f.nullable(f.txId),
      errorMessage: f.nullable(f.string),
    },
    BurnerRegistered: { burner: f.chainAddress, auth: f.nullable(authorization) },
    UnsupportedDepositObserved: { transfer, reason: f.oneOf(UNSUPPORTED_REASONS) },
    RelayerGasSpent: {
      chainId: f.number,
      txHash: f.txId,
      commandId: f.string,
      ...gasSpentFields,
      cost: f.nullable(f.amount),
    },
    DepositFinalized: { chainId: f.number, txHash: f.txId, logIndex: f.number },
    SolanaSweepCommitted: solanaSweep,
    BounceSetupAttached: { refundTo: f.chainAddress, transaction: f.string },
    StealthAnnounced: { scheme: f.string, chainId: f.number, txHash: f.txId },
    StealthAnnounceFailed: { scheme: f.string, chainId: f.number, errorMessage: f.string },
  },
});
