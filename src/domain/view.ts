import { detectedDeposit } from "./evolve.ts";
import type { Session, Transfer } from "./types.ts";

/**
 * The interface's Session object (GET /sessions/:id, the `data` of every SSE `status` event).
 * Field names and formats follow the spec; fields the spec lists as nullable are null until known.
 * `flow`, `expires_at`, `outcome`, `fee_bps`, `expected_amount`, `settled_amount`, `app_fee_amount`,
 * `refunds`, `deposits` and `unsupported_deposits` are additions documented in docs/API.md.
 */
export function sessionView(s: Session) {
  const detected = detectedDeposit(s);
  return {
    id: s.id,
    created_at: new Date(s.createdAt).toISOString(),
    updated_at: new Date(s.updatedAt).toISOString(),
    burner_address: s.burner,
    eip7702_auth: s.auth && { ...s.auth },
    dest_address: s.destAddress,
    dest_chain_id: s.destChainId,
    app_fee_bps: s.appFeeBps,
    app_fee_recipient: s.appFeeRecipient,
    app_fee_recipient_sol: s.appFeeRecipientSol,
    status: s.status,
    // Decided when the sweep confirms; shown once the money has arrived.
    outcome: s.status === "swept" ? s.outcome : null,
    flow: s.flow,
    expires_at: s.expiresAt,
    source_chain_id: detected ? detected.first.chainId : null,
    detected_token: detected ? detected.first.token : null,
    detected_amount: detected ? detected.amount.toString() : null,
    detected_tx: detected ? detected.first.txHash : null,
    sweep_tx: s.sweepTx,
    swap_output_amount: s.swapOutputAmount?.toString() ?? null,
    fee_amount: s.feeAmount?.toString() ?? null,
    bridge_amount: s.bridgeAmount?.toString() ?? null,
    bridge_tx: s.bridgeTx,
    dest_tx: s.destTx,
    retry_count: s.retryCount,
    error_message: s.errorMessage,
    deposits: s.deposits.map(depositRow),
    fee_bps: s.commitment?.feeBps ?? s.solanaSweep?.feeBps ?? null,
    expected_amount: s.expectedAmount?.toString() ?? null,
    settled_amount: s.settledAmount?.toString() ?? null,
    app_fee_amount: s.appFeeAmount?.toString() ?? null,
    merchant_id: s.merchantId,
    refunds: s.refunds.map((r) => ({
      id: r.id,
      kind: r.kind,
      chain_id: r.chainId,
      token: r.token,
      to: r.to,
      amount: r.amount === null ? "full" : r.amount.toString(),
      tx_hash: r.txHash,
      status: r.status,
      error_message: r.errorMessage,
    })),
    // Transfers the operator does not accept: never the detected deposit, refundable by the burner.
    unsupported_deposits: s.unsupportedDeposits.map((t) => ({ ...depositRow(t), reason: t.reason })),
  };
}

export type SessionView = ReturnType<typeof sessionView>;

/** One transfer into the burner as the Session object lists it. */
const depositRow = (t: Transfer) => ({
  chain_id: t.chainId,
  token: t.token,
  amount: t.amount.toString(),
  tx: t.txHash,
  log_index: t.logIndex,
  block_number: Number(t.blockNumber),
});
