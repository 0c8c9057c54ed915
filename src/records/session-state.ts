import { FLOWS, STATUSES, UNSUPPORTED_REASONS } from "../domain/types.ts";
import type { SessionView } from "../domain/view.ts";
import * as f from "../record-fields/fields.ts";
import { type Avro, authorization, OUTCOMES, REFUND_KINDS, REFUND_STATUSES } from "./shared.ts";

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
 * gateway's response schema is derived from it (jsonSchemaOf in src/api/sessions.ts).
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
      // A bounce's are a Solana mint and a base58 address.
      token: f.chainAddress,
      to: f.chainAddress,
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

/** session.state: the Session object after each change, compacted by session id. */
export const sessionState = f.record({ version: f.number, session });
export type SessionStateRecord = f.Infer<typeof sessionState>;
