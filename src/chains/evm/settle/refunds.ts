import {
  type Address,
  concat,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
  type SignedAuthorization,
  type TransactionReceipt,
} from "viem";
import type { Mined, RefundAllCommand, RefundCommand } from "../../adapter.ts";
import { EffectMissing, StepRefused, UpstreamUnavailable } from "../../execution-errors.ts";
import { burnerDelegateAbi } from "../abi.ts";
import type { TxRequest } from "./relayer-wallet.ts";
import { estimate, minedOf, mustSucceed, signedAuthorization, withMargin } from "./sweep.ts";

/** Whether the burner's code is the delegation designator to our delegate. */
async function delegates(client: PublicClient, burner: Address, delegate: Address): Promise<boolean> {
  const code = await client.getCode({ address: burner }).catch((err: unknown) => {
    throw new UpstreamUnavailable(`code of ${burner}: ${(err as Error).message.split("\n")[0]}`, null);
  });
  return (code ?? "0x").toLowerCase() === concat(["0xef0100", delegate]).toLowerCase();
}

/**
 * Refund and RefundAll run the delegate's code in the burner. A burner that does not delegate yet
 * (its money was never swept: an expired session, a sweep that never went out) is delegated by the
 * same transaction, a type-4 one carrying the burner's authorization from the command. Without one
 * it is refused with a message saying so. An authorization the chain skips (a stale nonce) leaves
 * the call running against an account with no code: checkRefund then finds no refund log.
 */
async function authorizationFor(
  client: PublicClient,
  delegate: Address,
  c: RefundCommand | RefundAllCommand,
): Promise<SignedAuthorization[] | undefined> {
  const burner = c.burner as Address;
  if (await delegates(client, burner, delegate)) return undefined;
  if (c.auth === null)
    throw new StepRefused(
      `burner ${burner} does not delegate to ${delegate} and the command carries no authorization`,
      null,
    );
  return [signedAuthorization(c.auth)];
}

/** Refund's and RefundAll's delegate call on an already delegated burner, estimated (a revert is terminal). */
export function refundRequest(
  client: PublicClient,
  relayer: Address,
  delegate: Address,
  c: RefundCommand | RefundAllCommand,
): () => Promise<TxRequest> {
  return async () => {
    const burner = c.burner as Address;
    const authorizationList = await authorizationFor(client, delegate, c);
    const data =
      c.type === "Refund"
        ? encodeFunctionData({
            abi: burnerDelegateAbi,
            functionName: "refund",
            args: [
              {
                token: c.token as Address,
                to: c.to as Address,
                amount: c.amount,
                deadline: BigInt(c.deadline),
                salt: c.salt as Hex,
              },
              c.signature as Hex,
            ],
          })
        : encodeFunctionData({
            abi: burnerDelegateAbi,
            functionName: "executeStandingRefund",
            args: [c.to as Address, BigInt(c.deadline), c.signature as Hex, c.token as Address],
          });
    const gas = await estimate(() =>
      client.estimateGas({
        account: relayer,
        to: burner,
        data,
        ...(authorizationList && { authorizationList }),
      }),
    );
    return { to: burner, data, gas: withMargin(gas), ...(authorizationList && { authorizationList }) };
  };
}

/**
 * The refund's effect: the burner's Refunded / StandingRefundExecuted log for the token and
 * recipient. The delegate emits it only after the transfer to `to` succeeded in the same call, so
 * the log is the balance change.
 */
export function checkRefund(
  receipt: TransactionReceipt,
  c: { burner: string; token: string; to: string },
  kind: "Refunded" | "StandingRefundExecuted",
): Mined {
  mustSucceed(receipt);
  const logs = parseEventLogs({ abi: burnerDelegateAbi, eventName: kind, logs: receipt.logs });
  const found = logs.find(
    (l) =>
      isAddressEqual(l.address, c.burner as Address) &&
      isAddressEqual(l.args.token, c.token as Address) &&
      isAddressEqual(l.args.to, c.to as Address) &&
      l.args.amount > 0n,
  );
  if (!found)
    throw new EffectMissing(
      `transaction ${receipt.transactionHash} mined without the burner's ${kind} log: nothing was refunded`,
      receipt.transactionHash,
    );
  return minedOf(receipt);
}
