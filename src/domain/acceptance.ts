import type { DepositTerms, Transfer, UnsupportedReason } from "./types.ts";

/**
 * Whether a transfer into the burner is a payment the operator accepts: its token is one of the
 * chain's accepted tokens and its amount reaches that token's minimum. null: accepted; otherwise why
 * not. `terms` is null on records written before the indexer attached them, when every transfer
 * counted: they keep counting, so an upgrade changes nothing already on the way.
 *
 * The rule lives here, in the pure core, and the operator's configuration reaches it as data on the
 * command (the indexer looks the terms up in its chain's CHAINS entry): the decider reads no
 * configuration, and a session's fate is decided by what its journal and its inputs say.
 */
export function unsupportedReason(
  transfer: Pick<Transfer, "amount">,
  terms: DepositTerms | null,
): UnsupportedReason | null {
  if (terms === null) return null;
  if (!terms.accepted) return "token_not_accepted";
  // Below the minimum is dust: worth less than the gas a sweep or a bounce would cost the relayer.
  if (transfer.amount < terms.minAmount) return "below_minimum";
  return null;
}
