import { FINALITIES } from "../domain/types.ts";
import * as f from "../record-fields/fields.ts";
import { depositTerms, transferFields } from "./shared.ts";

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
  /**
   * null: the chain's confirmation depth is final (EVM). "confirmed" (Solana): detects, does not
   * settle; the same transfer is published again as "finalized" once its slot is (docs/SOLANA.md).
   */
  finality: f.nullable(f.oneOf(FINALITIES)),
});
export type TransferObserved = f.Infer<typeof transferObserved>;
