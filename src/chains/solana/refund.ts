// The payer's refund of a Solana burner (docs/SOLANA.md, "The payer's refund"): the burner's whole
// balance of one asset to a wallet of the payer's choosing, the relayer paying the fee. It is a sweep
// with one leg, so it is built and checked by the sweep's own code: the service rebuilds it from the
// balance it reads and compares what the two do. Imports only web3.js, spl-token and noble (browsers).
import type { Transaction } from "@solana/web3.js";
import { buildSolanaSweep, checkSolanaSweep, type SweepCheck } from "./sweep.ts";

export interface SolanaRefundParams {
  /** The burner: the balance's owner, the refund's only signer besides the fee payer. */
  burner: string;
  /** The relayer (the creation's `sweep.fee_payer`): the fee payer, and nothing else. */
  feePayer: string;
  /** The USDC mint, or NATIVE_MINT for SOL. */
  token: string;
  /** The payer's wallet (its associated USDC account must exist for USDC). */
  to: string;
  /** The burner's whole balance of `token`: base units, or lamports (the relayer pays the fee). */
  amount: bigint;
  /** A recent blockhash (GET /solana/blockhash). */
  blockhash: string;
}

/** The refund, unsigned: one SPL TransferChecked (or System transfer) of `amount` to `to`. */
export const buildSolanaRefund = (p: SolanaRefundParams): Transaction =>
  buildSolanaSweep({ ...p, legs: [{ to: p.to, amount: p.amount }] });

/**
 * The service's check of a refund the payer's client sent (base64, legacy or v0, burner-signed): it
 * does exactly what the transaction buildSolanaRefund makes for these parameters does (the sweep's
 * check), with a valid burner signature. Anything else (another amount, recipient, fee payer, an extra instruction) fails.
 */
export function checkSolanaRefund(wire: string, expected: Omit<SolanaRefundParams, "blockhash">): SweepCheck {
  const checked = checkSolanaSweep(wire, {
    ...expected,
    legs: [{ to: expected.to, amount: expected.amount }],
  });
  if (checked.ok || !checked.reason.startsWith("the transaction is not the sweep")) return checked;
  return {
    ok: false,
    reason: `it is not the transfer of the burner's whole balance (${expected.amount}) to ${expected.to}, fee payer ${expected.feePayer}, and nothing else`,
  };
}
