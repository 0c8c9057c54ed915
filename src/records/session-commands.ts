import type { SessionCommand } from "../domain/commands.ts";
import { FINALITIES } from "../domain/types.ts";
import * as f from "../record-fields/fields.ts";
import { message } from "../record-fields/unions.ts";
import {
  type Avro,
  authorization,
  commitment,
  creation,
  depositTerms,
  onChain,
  pinnedDestination,
  replyTo,
  signedRefund,
  solanaSweepLegs,
  standingRefund,
  transfer,
} from "./shared.ts";

/** session.commands */
export const sessionCommand: f.Field<SessionCommand, Avro> = message({
  metadata: { commandId: f.string, issuedAt: f.number, replyTo: f.nullable(replyTo) },
  data: { sessionId: f.string },
  union: "command",
  types: {
    CreateSession: { ...creation, pinnedOnly: f.boolean },
    RecordTransfer: { transfer, terms: f.nullable(depositTerms), finality: f.nullable(f.oneOf(FINALITIES)) },
    RetractTransfer: { chainId: f.number, txHash: f.txId, logIndex: f.number, blockHash: f.blockId },
    ExpireSession: { now: f.number },
    CommitIntent: {
      ...commitment,
      burner: f.nullable(f.chainAddress),
      auth: f.nullable(authorization),
      merchantPins: f.nullable(f.array(pinnedDestination)),
    },
    AttachStandingRefund: { standingRefund },
    RequestRefund: { chainId: f.number, ...signedRefund, onChain },
    RequestRefundAll: { chainId: f.number, token: f.address, onChain },
    RegisterBurner: {
      burner: f.chainAddress,
      auth: f.nullable(authorization),
      standingRefund: f.nullable(standingRefund),
      bounceSetup: f.nullable(f.record({ refundTo: f.chainAddress, transaction: f.string })),
    },
    CommitSolanaSweep: {
      transaction: f.string,
      burner: f.chainAddress,
      token: f.chainAddress,
      legs: solanaSweepLegs,
      feeBps: f.number,
      feeRecipient: f.chainAddress,
      vault: f.chainAddress,
    },
    RequestSolanaRefund: {
      transaction: f.string,
      signature: f.txId,
      burner: f.chainAddress,
      token: f.chainAddress,
      to: f.chainAddress,
      amount: f.amount,
    },
  },
});
