import { BaseError } from "../support/errors.ts";

/**
 * The chain forked below every block the block source remembers (a slot, on Solana): there is no
 * safe common ancestor, so the indexer stops and an operator has to look. One error for every chain
 * family: the indexer and the operator read the same `reorg_too_deep` whatever the chain.
 */
export class ReorgTooDeepError extends BaseError {
  override name = "ReorgTooDeepError";
  readonly code = "reorg_too_deep";
  readonly retryable = false;
}
