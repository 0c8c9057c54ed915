import * as f from "../record-fields/fields.ts";
import { union } from "../record-fields/unions.ts";
import { gas, sweepAmounts } from "./shared.ts";

/** executor.results: what became of an executor command. */
export const executorResult = f.record({
  commandId: f.string,
  sessionId: f.nullable(f.string),
  chainId: f.number,
  /** Unix ms. */
  occurredAt: f.number,
  result: union({
    TransactionSubmitted: { txHash: f.txId },
    TransactionConfirmed: { txHash: f.txId, blockNumber: f.blockNumber, gas },
    ExecutionFailed: { errorMessage: f.string, retryable: f.boolean, txHash: f.nullable(f.txId) },
    SweepConfirmed: { txHash: f.txId, blockNumber: f.blockNumber, ...sweepAmounts, swapped: f.boolean, gas },
    BridgeRelayed: {
      txHash: f.txId,
      blockNumber: f.blockNumber,
      destChainId: f.number,
      mintedAmount: f.amount,
      gas,
    },
  }),
});
export type ExecutorResult = f.Infer<typeof executorResult>;
