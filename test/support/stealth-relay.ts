// StealthRelay on a private anvil (automine; the shared chains are not touched), for the integration tests of
// the relay: a funded relayer that deployed it, stealth addresses holding USDC and no ETH, and the two
// signatures the client library would make, with the typed data the service uses.
import { type Address, createWalletClient, type Hex, http, parseEther, parseSignature } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { loadArtifacts } from "../../src/chains/evm/contracts.ts";
import {
  type ReceiveAuthorizationMessage,
  receiveAuthorizationTypedData,
  type WithdrawMessage,
  withdrawTypedData,
} from "../../src/chains/evm/typed-data/stealth-withdraw.ts";
import { startTestChain, type TestChain } from "./anvil-chain.ts";

export const STEALTH_AMOUNT = 25_000_000n; // 25 USDC
export const randomAddress = () => privateKeyToAddress(generatePrivateKey());

export type Withdraw = Omit<WithdrawMessage, "authNonce">;

/** A wallet of a fresh key holding 10 ETH on `chain`. */
export async function fundedWallet(chain: TestChain) {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.rpc("anvil_setBalance", [account.address, `0x${parseEther("10").toString(16)}`]);
  return createWalletClient({ account, chain: chain.client.chain, transport: http(chain.url) });
}

export async function startRelayChain(chainId: number) {
  const chain = await startTestChain({ chainId });
  const relayer = await fundedWallet(chain);
  const { StealthRelay } = (await loadArtifacts()).contracts;
  const hash = await relayer.deployContract({
    ...StealthRelay,
    args: [chain.usdc],
    account: relayer.account,
    chain: chain.client.chain,
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error("no StealthRelay address");
  const relay = receipt.contractAddress;

  const balance = (owner: Address) =>
    chain.client.readContract({
      address: chain.usdc,
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [owner],
    });

  /** A stealth address as the recipient finds it: a fresh key holding USDC and no ETH. */
  async function fundedStealth(amount = STEALTH_AMOUNT) {
    const account = privateKeyToAccount(generatePrivateKey());
    await chain.sendUsdc(account.address, amount);
    return account;
  }

  /** Both signatures of the stealth key: the authorization of `value` to the relay and `w` bound to its nonce. */
  async function signPair(stealth: Stealth, w: Withdraw, value = STEALTH_AMOUNT) {
    const now = (await chain.client.getBlock()).timestamp;
    const auth: ReceiveAuthorizationMessage = {
      from: stealth.address,
      to: relay,
      value,
      validAfter: 0n,
      validBefore: now + 3600n,
      nonce: generatePrivateKey(),
    };
    const authSig = await stealth.signTypedData(
      receiveAuthorizationTypedData(chain.chainId, chain.usdc, auth),
    );
    const withdrawSig = await stealth.signTypedData(
      withdrawTypedData(chain.chainId, relay, { ...w, authNonce: auth.nonce }),
    );
    return { auth, authSig, withdrawSig };
  }

  const deadline = async () => (await chain.client.getBlock()).timestamp + 600n;

  return { chain, relay, relayer, balance, fundedStealth, signPair, deadline };
}

type Stealth = ReturnType<typeof privateKeyToAccount>;
export type SignedPair = Awaited<ReturnType<Awaited<ReturnType<typeof startRelayChain>>["signPair"]>>;

/** StealthRelay.withdraw's arguments for a signed pair (another Withdraw signature to pair it wrongly). */
export function withdrawArgs(p: SignedPair, w: Withdraw, withdrawSig: Hex = p.withdrawSig) {
  const { v, r, s } = parseSignature(p.authSig);
  return [
    { ...p.auth, v: Number(v), r, s },
    { destination: w.destination, fee: w.fee, relayer: w.relayer, deadline: w.deadline },
    withdrawSig,
  ] as const;
}
