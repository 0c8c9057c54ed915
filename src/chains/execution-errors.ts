import { BaseError, type BaseErrorOptions } from "../support/errors.ts";
import type { TxHash } from "./adapter.ts";

/**
 * How a step of the executor fails, whatever the chain family. The executor retries the retryable
 * ones (each failed try is an ExecutionFailed with retryable=true) and gives up on the rest at once;
 * `txHash` is the transaction the failure is about, when there is one.
 */
export abstract class StepError extends BaseError {
  readonly txHash: TxHash | null;
  constructor(message: string, txHash: TxHash | null, options?: BaseErrorOptions) {
    super(message, options);
    this.txHash = txHash;
  }
}

/** The call reverts (in simulation or on chain): the same input reverts again. */
export class StepReverted extends StepError {
  override name = "StepReverted";
  readonly code = "step_reverted";
  readonly retryable = false;
}

/** Mined, but what the step must do did not happen (no delegation, no Swept log, no mint, no balance change). */
export class EffectMissing extends StepError {
  override name = "EffectMissing";
  readonly code = "effect_missing";
  readonly retryable = false;
}

/** The command cannot be carried out as given (unknown chain, no bridge route, missing delegation). */
export class StepRefused extends StepError {
  override name = "StepRefused";
  readonly code = "step_refused";
  readonly retryable = false;
}

/** Broadcast and not mined within the stuck timeout: the next try replaces it with higher fees. */
export class TransactionStuck extends StepError {
  override name = "TransactionStuck";
  readonly code = "transaction_stuck";
  readonly retryable = true;
}

/** The nonce went to another transaction before ours mined: ours never can, the next try signs anew. */
export class NonceTaken extends StepError {
  override name = "NonceTaken";
  readonly code = "nonce_taken";
  readonly retryable = true;
}

/**
 * Another executor holds the step (docs/EXECUTOR.md, "One owner per step") and has recorded no
 * transaction for it yet, or took it over before ours was broadcast: nothing of ours was sent, and
 * the next try resumes the owner's transaction from the ledger.
 */
export class StepOwnedElsewhere extends StepError {
  override name = "StepOwnedElsewhere";
  readonly code = "step_owned_elsewhere";
  readonly retryable = true;
}

/**
 * The chain's clock has not reached the moment the step is for (a subscription period that has not
 * started by the block's timestamp, while it has by ours): nothing was sent, and a later try can pass.
 */
export class StepTooEarly extends StepError {
  override name = "StepTooEarly";
  readonly code = "step_too_early";
  readonly retryable = true;
}

/** An RPC or HTTP call failed (unreachable, timeout, 5xx): nothing is known to have changed. */
export class UpstreamUnavailable extends StepError {
  override name = "UpstreamUnavailable";
  readonly code = "upstream_unavailable";
  readonly retryable = true;
}

/** The transaction hash a step error is about, or null. */
export const txHashOf = (err: unknown): TxHash | null => (err instanceof StepError ? err.txHash : null);
