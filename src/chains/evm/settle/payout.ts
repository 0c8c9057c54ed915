import {
  type Address,
  encodeFunctionData,
  erc20Abi,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import type { Mined } from "../../adapter.ts";
import { EffectMissing, UpstreamUnavailable } from "../../execution-errors.ts";
import type { TxRequest } from "./relayer-wallet.ts";
import { estimate, minedOf, mustSucceed, withMargin } from "./sweep.ts";

/**
 * The fast fill's payout on an EVM chain (docs/SOLANA.md, "EVM destinations: the fast fill"): a plain
 * ERC-20 transfer of the chain's USDC from the relayer's own inventory to the destination.
 */
export interface Payout {
  usdc: Address;
  relayer: Address;
  to: Address;
  amount: bigint;
}

/** The relayer's USDC balance (its inventory), at the latest block. */
export async function usdcBalance(client: PublicClient, usdc: Address, owner: Address): Promise<bigint> {
  try {
    return await client.readContract({
      address: usdc,
      abi: erc20Abi,
      functionName: "balanceOf",
      args: [owner],
    });
  } catch (err) {
    throw new UpstreamUnavailable(
      `USDC balance of ${owner}: ${(err as Error).message.split("\n")[0]}`,
      null,
      {
        cause: err,
      },
    );
  }
}

/** `transfer(to, amount)` on the USDC, estimated (a transfer that would revert fails for good, nothing sent). */
export function payoutRequest(client: PublicClient, p: Payout): () => Promise<TxRequest> {
  return async () => {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [p.to, p.amount] });
    const gas = await estimate(() => client.estimateGas({ account: p.relayer, to: p.usdc, data }));
    return { to: p.usdc, data, gas: withMargin(gas) };
  };
}

/** The payout's effect: the USDC's Transfer log from the relayer to the destination, of exactly the amount. */
export function checkPayout(receipt: TransactionReceipt, p: Payout): Mined {
  mustSucceed(receipt);
  const paid = parseEventLogs({ abi: erc20Abi, eventName: "Transfer", logs: receipt.logs }).some(
    (l) =>
      isAddressEqual(l.address, p.usdc) &&
      isAddressEqual(l.args.from, p.relayer) &&
      isAddressEqual(l.args.to, p.to) &&
      l.args.value === p.amount,
  );
  if (!paid)
    throw new EffectMissing(
      `transaction ${receipt.transactionHash} mined without the USDC transfer of ${p.amount} to ${p.to}`,
      receipt.transactionHash,
    );
  return minedOf(receipt);
}
