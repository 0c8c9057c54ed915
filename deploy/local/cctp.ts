// The CCTP V2-shaped bridge on the local chains: a MessageTransmitterV2 (one attester, threshold 1) and a
// TokenMessengerV2 on each chain, the messenger made TestUSDC's minter, then each messenger linked to the
// other chain's messenger and USDC.
import type { Address, PublicClient } from "viem";
import { testUsdcAbi, tokenMessengerV2Abi } from "../../src/chains/evm/abi.ts";
import type { Artifacts } from "../../src/chains/evm/contracts.ts";
import { addressToBytes32 } from "../../src/chains/evm/settle/cctp-message.ts";
import type { TxBatch } from "./batch.ts";

export type LocalCctp = {
  /** This chain's CCTP domain (local values, not Circle's: see src/contracts/README.md). */
  domain: number;
  messageTransmitter: Address;
  tokenMessenger: Address;
  /** The local attester's address, the one enabled attester of the transmitter. */
  attester: Address;
};

export function queueCctp(
  batch: TxBatch,
  contracts: Artifacts["contracts"],
  o: { domain: number; attester: Address; usdc: Address; feeRecipient: Address },
): LocalCctp {
  const owner = batch.from;
  const messageTransmitter = batch.deploy("MessageTransmitterV2", {
    ...contracts.MessageTransmitterV2,
    args: [o.domain, o.attester, 1n, owner],
    gas: 3_000_000n,
  });
  const tokenMessenger = batch.deploy("TokenMessengerV2", {
    ...contracts.TokenMessengerV2,
    args: [messageTransmitter, o.feeRecipient, owner],
    gas: 3_000_000n,
  });
  batch.call("USDC minter = TokenMessengerV2", {
    address: o.usdc,
    abi: testUsdcAbi,
    functionName: "configureMinter",
    args: [tokenMessenger, true],
    gas: 100_000n,
  });
  return { domain: o.domain, messageTransmitter, tokenMessenger, attester: o.attester };
}

/** Links `local` to `remote` unless it already is (cheap reads, so a warm start sends nothing). */
export async function queueLink(
  client: PublicClient,
  batch: TxBatch,
  local: { cctp: LocalCctp; usdc: Address },
  remote: { cctp: LocalCctp; usdc: Address },
): Promise<void> {
  const messenger = local.cctp.tokenMessenger;
  const [knownMessenger, knownToken] = await Promise.all([
    client.readContract({
      address: messenger,
      abi: tokenMessengerV2Abi,
      functionName: "remoteTokenMessengers",
      args: [remote.cctp.domain],
    }),
    client.readContract({
      address: messenger,
      abi: tokenMessengerV2Abi,
      functionName: "getLocalToken",
      args: [remote.cctp.domain, addressToBytes32(remote.usdc)],
    }),
  ]);
  if (knownMessenger !== addressToBytes32(remote.cctp.tokenMessenger)) {
    batch.call("addRemoteTokenMessenger", {
      address: messenger,
      abi: tokenMessengerV2Abi,
      functionName: "addRemoteTokenMessenger",
      args: [remote.cctp.domain, addressToBytes32(remote.cctp.tokenMessenger)],
      gas: 100_000n,
    });
  }
  if (knownToken.toLowerCase() !== local.usdc.toLowerCase()) {
    batch.call("linkTokenPair", {
      address: messenger,
      abi: tokenMessengerV2Abi,
      functionName: "linkTokenPair",
      args: [local.usdc, remote.cctp.domain, addressToBytes32(remote.usdc)],
      gas: 150_000n,
    });
  }
}
