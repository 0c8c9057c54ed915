import {
  type Address,
  encodeFunctionData,
  type Hex,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
  type TransactionReceipt,
} from "viem";
import { BaseError } from "../../../support/errors.ts";
import type { AttestedMessage, RelayDone } from "../../adapter.ts";
import { EffectMissing, UpstreamUnavailable } from "../../execution-errors.ts";
import { messageTransmitterV2Abi, tokenMessengerV2Abi } from "../abi.ts";
import { decodeMessage } from "./cctp-message.ts";
import type { TxRequest } from "./relayer-wallet.ts";
import { estimate, minedOf, mustSucceed, withMargin } from "./sweep.ts";

export interface DestinationBridge {
  messageTransmitter: Address;
  tokenMessenger: Address;
}

/** Thrown by the builder when the message was received before (by us before a crash, or by anyone). */
export class AlreadyReceived extends BaseError {
  override name = "AlreadyReceived";
  readonly code = "already_received";
  readonly retryable = false;
  constructor(readonly nonce: Hex) {
    super(`message ${nonce} was already received`);
  }
}

/** `receiveMessage(message, attestation)` on the destination transmitter, unless its nonce is used. */
export function relayRequest(
  client: PublicClient,
  relayer: Address,
  bridge: DestinationBridge,
  attested: () => Promise<AttestedMessage>,
): () => Promise<TxRequest> {
  return async () => {
    const m = await attested();
    const nonce = decodeMessage(m.message as Hex).nonce;
    if (await isReceived(client, bridge, nonce)) throw new AlreadyReceived(nonce);
    const call = {
      abi: messageTransmitterV2Abi,
      functionName: "receiveMessage",
      args: [m.message as Hex, m.attestation as Hex],
    } as const;
    const gas = await estimate(() =>
      client.estimateContractGas({ ...call, address: bridge.messageTransmitter, account: relayer }),
    );
    return { to: bridge.messageTransmitter, data: encodeFunctionData(call), gas: withMargin(gas) };
  };
}

async function isReceived(client: PublicClient, bridge: DestinationBridge, nonce: Hex): Promise<boolean> {
  const used = await client
    .readContract({
      address: bridge.messageTransmitter,
      abi: messageTransmitterV2Abi,
      functionName: "usedNonces",
      args: [nonce],
    })
    .catch((err: unknown) => {
      throw new UpstreamUnavailable(`usedNonces(${nonce}): ${(err as Error).message.split("\n")[0]}`, null);
    });
  return used !== 0n;
}

/** The transaction that received the message `nonce` before: its MessageReceived log names it. */
export async function earlierReceipt(
  client: PublicClient,
  bridge: DestinationBridge,
  nonce: Hex,
): Promise<TransactionReceipt> {
  const logs = await client.getContractEvents({
    address: bridge.messageTransmitter,
    abi: messageTransmitterV2Abi,
    eventName: "MessageReceived",
    args: { nonce },
    fromBlock: 0n,
  });
  const first = logs[0];
  if (!first?.transactionHash)
    throw new EffectMissing(`message ${nonce} is marked received but no MessageReceived log was found`, null);
  return client.getTransactionReceipt({ hash: first.transactionHash });
}

/** The receive's effect: the messenger's MintAndWithdraw to `recipient` in the same transaction. */
export function checkMint(
  receipt: TransactionReceipt,
  bridge: DestinationBridge,
  recipient: string,
): RelayDone {
  mustSucceed(receipt);
  const mint = parseEventLogs({
    abi: tokenMessengerV2Abi,
    eventName: "MintAndWithdraw",
    logs: receipt.logs,
  }).find(
    (l) =>
      isAddressEqual(l.address, bridge.tokenMessenger) &&
      isAddressEqual(l.args.mintRecipient, recipient as Address),
  );
  if (!mint)
    throw new EffectMissing(
      `receiveMessage ${receipt.transactionHash} mined without a mint to ${recipient}`,
      receipt.transactionHash,
    );
  return { ...minedOf(receipt), mintedAmount: mint.args.amount };
}
