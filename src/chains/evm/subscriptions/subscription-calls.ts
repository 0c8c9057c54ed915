import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import type { CancelMandateCommand, ChargeSubscriptionCommand, Mined } from "../../adapter.ts";
import { EffectMissing } from "../../execution-errors.ts";
import { subscriptionManagerAbi } from "../abi.ts";
import type { TxRequest } from "../settle/relayer-wallet.ts";
import { estimate, minedOf, mustSucceed, withMargin } from "../settle/sweep.ts";
import type { MandateMessage } from "./subscriptions.ts";

/** The record's mandate as the contract's struct (bigints where the ABI has uint256). */
export function mandateArg(m: ChargeSubscriptionCommand["mandate"]): MandateMessage {
  return {
    payer: m.payer as Address,
    token: m.token as Address,
    amount: BigInt(m.amount),
    period: BigInt(m.period),
    start: BigInt(m.start),
    merchant: m.merchantAddress as Address,
    appFeeBps: m.appFeeBps,
    appFeeRecipient: m.appFeeRecipient as Address,
    salt: m.salt as Hex,
  };
}

/**
 * SubscriptionManager.charge or cancelBySig from the relayer, estimated first: a call that would revert
 * (allowance removed, period over, canceled) fails at once and for good, its error named.
 *
 * The estimate runs on the pending block, the one the transaction lands in: the contract judges the
 * period by its block's timestamp, which the latest block trails by up to a block interval. A charge
 * the chain still finds early (`PeriodNotStarted`: its clock behind ours) is a retryable try, not a
 * spent attempt: the step tries again after its backoff.
 */
export function subscriptionCallRequest(
  client: PublicClient,
  relayer: Address,
  c: ChargeSubscriptionCommand | CancelMandateCommand,
): () => Promise<TxRequest> {
  return async () => {
    const manager = c.manager as Address;
    const data =
      c.type === "ChargeSubscription"
        ? encodeFunctionData({
            abi: subscriptionManagerAbi,
            functionName: "charge",
            args: [mandateArg(c.mandate), c.signature as Hex, BigInt(c.periodIndex), BigInt(c.feeBps)],
          })
        : encodeFunctionData({
            abi: subscriptionManagerAbi,
            functionName: "cancelBySig",
            args: [mandateArg(c.mandate), c.signature as Hex],
          });
    const gas = await estimate(
      () => client.estimateGas({ account: relayer, to: manager, data, blockTag: "pending" }),
      ["PeriodNotStarted"],
    );
    return { to: manager, data, gas: withMargin(gas) };
  };
}

/** The call's effect, never only its status: the manager's Charged log for this period, or its Canceled log. */
export function checkSubscriptionCall(
  receipt: TransactionReceipt,
  c: ChargeSubscriptionCommand | CancelMandateCommand,
): Mined {
  mustSucceed(receipt);
  const manager = c.manager as Address;
  const found =
    c.type === "ChargeSubscription"
      ? parseEventLogs({ abi: subscriptionManagerAbi, eventName: "Charged", logs: receipt.logs }).some(
          (l) => isAddressEqual(l.address, manager) && l.args.periodIndex === BigInt(c.periodIndex),
        )
      : parseEventLogs({ abi: subscriptionManagerAbi, eventName: "Canceled", logs: receipt.logs }).some((l) =>
          isAddressEqual(l.address, manager),
        );
  if (!found)
    throw new EffectMissing(
      `transaction ${receipt.transactionHash} mined without the manager's ${c.type === "ChargeSubscription" ? "Charged" : "Canceled"} log`,
      receipt.transactionHash,
    );
  return minedOf(receipt);
}
