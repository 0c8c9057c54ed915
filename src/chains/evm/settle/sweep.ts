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
import type { Mined, SettleCommand, SweepDone } from "../../adapter.ts";
import { EffectMissing, StepReverted, StepTooEarly, UpstreamUnavailable } from "../../execution-errors.ts";
import { burnerDelegateAbi } from "../abi.ts";
import type { IntentMessage } from "../typed-data/eip712.ts";
import type { TxRequest } from "./relayer-wallet.ts";
import { revertMessage } from "./revert.ts";

/** Gas estimates are raised by this much: a swap's cost moves with the pool between estimate and block. */
const GAS_MARGIN_PERCENT = 25n;

export const withMargin = (gas: bigint): bigint => (gas * (100n + GAS_MARGIN_PERCENT)) / 100n;

/** The stored authorization in viem's signAuthorization shape. */
export const signedAuthorization = (auth: SettleCommand["auth"]): SignedAuthorization => ({
  address: auth.address as Address,
  chainId: auth.chainId,
  nonce: auth.nonce,
  r: auth.r as Hex,
  s: auth.s as Hex,
  yParity: auth.yParity,
});

const intentArg = (i: SettleCommand["intent"]): IntentMessage => ({
  destChainId: BigInt(i.destChainId),
  destAddr: i.destAddr as Address,
  minOut: i.minOut,
  deadline: BigInt(i.deadline),
  salt: i.salt as Hex,
  inToken: i.inToken as Address,
  maxIn: i.maxIn,
  appFeeBps: i.appFeeBps,
  appFeeRecipient: i.appFeeRecipient as Address,
});

/**
 * The bridge fee the keeper allows: `bps` of the least the sweep can deliver (minOut less the fees),
 * so it stays under the delegate's cap of 20 bps of what is actually burned.
 */
function bridgeMaxFee(command: SettleCommand, bridged: boolean, bps: number): bigint {
  if (!bridged || bps === 0) return 0n;
  const { minOut, appFeeBps } = command.intent;
  const leastDelivered = (minOut * BigInt(10_000 - command.feeBps - appFeeBps)) / 10_000n;
  return (leastDelivered * BigInt(bps)) / 10_000n;
}

/**
 * Builds the sweep: a type-4 transaction from the relayer carrying the burner's authorization and
 * calling `sweep` on the burner. The estimate simulates it, so a sweep that would revert (min_out
 * above the pool, a bad signature, a used salt) fails here, terminally, and nothing is sent.
 */
export function sweepRequest(
  client: PublicClient,
  relayer: Address,
  command: SettleCommand,
  opts: { chainId: number; bridgeFinality: number; bridgeMaxFeeBps: number },
): () => Promise<TxRequest> {
  return async () => {
    const bridged = command.intent.destChainId !== opts.chainId;
    const call = {
      abi: burnerDelegateAbi,
      functionName: "sweep",
      args: [
        intentArg(command.intent),
        command.signature as Hex,
        command.feeBps,
        bridgeMaxFee(command, bridged, opts.bridgeMaxFeeBps),
        bridged ? opts.bridgeFinality : 0,
      ],
    } as const;
    const authorizationList = [signedAuthorization(command.auth)];
    const gas = await estimate(() =>
      client.estimateContractGas({
        ...call,
        address: command.burner as Address,
        account: relayer,
        authorizationList,
      }),
    );
    return {
      to: command.burner as Address,
      data: encodeFunctionData(call),
      gas: withMargin(gas),
      authorizationList,
    };
  };
}

/**
 * Runs an estimate: a revert is terminal with what it says, anything else is the node's trouble.
 * A revert named in `notYet` (a custom error meaning the chain has not reached the step's moment)
 * is a try to repeat instead.
 */
export async function estimate(fn: () => Promise<bigint>, notYet: readonly string[] = []): Promise<bigint> {
  try {
    return await fn();
  } catch (err) {
    const reverted = revertMessage(err);
    if (reverted !== null && notYet.some((name) => reverted.startsWith(`${name}(`)))
      throw new StepTooEarly(`not yet by the chain's clock: reverts: ${reverted}`, null, { cause: err });
    if (reverted !== null) throw new StepReverted(`reverts: ${reverted}`, null, { cause: err });
    throw new UpstreamUnavailable(`gas estimate failed: ${(err as Error).message.split("\n")[0]}`, null, {
      cause: err,
    });
  }
}

/**
 * A mined transaction as a result: its hash, block and what the relayer paid for it (recorded on the
 * session and bounded by its relayer budget, docs/SECURITY.md).
 */
export function minedOf(receipt: TransactionReceipt): Mined {
  return {
    txHash: receipt.transactionHash,
    blockNumber: receipt.blockNumber,
    gas: { gasUsed: receipt.gasUsed, feeWei: receipt.gasUsed * receipt.effectiveGasPrice },
  };
}

export function mustSucceed(receipt: TransactionReceipt): void {
  if (receipt.status !== "success")
    throw new StepReverted(
      `transaction ${receipt.transactionHash} reverted in block ${receipt.blockNumber}`,
      receipt.transactionHash,
    );
}

/**
 * The sweep's effects, never only its status: the burner's code must be the delegation designator
 * `0xef0100 || delegate` (an authorization with a stale nonce or for another chain is skipped by the
 * chain, and the call then "succeeds" against an account with no code), and the receipt must hold
 * the burner's `Swept` log for this Intent's salt, whose amounts are the result.
 */
export async function checkSweep(
  client: PublicClient,
  command: SettleCommand,
  chain: { chainId: number; delegate: Address; usdc?: Address | undefined },
  receipt: TransactionReceipt,
): Promise<SweepDone> {
  const { chainId, delegate } = chain;
  mustSucceed(receipt);
  const burner = command.burner as Address;
  const code = await client.getCode({ address: burner }).catch((err: unknown) => {
    throw new UpstreamUnavailable(`code of ${burner}: ${(err as Error).message}`, receipt.transactionHash);
  });
  const designator = concat(["0xef0100", delegate]).toLowerCase();
  if ((code ?? "0x").toLowerCase() !== designator)
    throw new EffectMissing(
      `the burner's authorization was not applied: code at ${burner} is ${code ?? "0x"}, not ${designator} (stale nonce or wrong chain in the authorization?)`,
      receipt.transactionHash,
    );
  const swept = parseEventLogs({ abi: burnerDelegateAbi, eventName: "Swept", logs: receipt.logs }).find(
    (l) =>
      isAddressEqual(l.address, burner) && l.args.salt.toLowerCase() === command.intent.salt.toLowerCase(),
  );
  if (!swept)
    throw new EffectMissing(
      `transaction ${receipt.transactionHash} mined without the burner's Swept log: nothing was swept`,
      receipt.transactionHash,
    );
  const a = swept.args;
  return {
    ...minedOf(receipt),
    amountIn: a.amountIn,
    swapOutputAmount: a.usdcOut,
    feeAmount: a.platformFee,
    appFeeAmount: a.appFee,
    deliveredAmount: a.delivered,
    bridged: Number(a.destChainId) !== chainId,
    // Without a configured USDC, a deposit counts as swapped when what came out differs from what went in.
    swapped: chain.usdc ? !isAddressEqual(a.inToken, chain.usdc) : a.amountIn !== a.usdcOut,
    destChainId: Number(a.destChainId),
    destAddr: a.destAddr.toLowerCase(),
  };
}
