// The gasless stealth withdrawal on EVM (docs/STEALTH.md, "Withdrawal on EVM"): everything the relayer checks
// before it pays for StealthRelay.withdraw, and the send itself through the ledger-backed relayer wallet the
// executor uses (so its nonces never collide with settlement's, and one withdrawal is one transaction).
import {
  type Address,
  encodeFunctionData,
  isAddressEqual,
  type PublicClient,
  parseEventLogs,
  parseSignature,
  verifyTypedData,
  zeroAddress,
} from "viem";
import { StepReverted } from "../../execution-errors.ts";
import {
  type StealthWithdrawal,
  type WithdrawalRefusalCode,
  WithdrawalRefused,
  type WithdrawalSent,
} from "../../stealth-withdrawals.ts";
import { stealthRelayAbi, testUsdcAbi } from "../abi.ts";
import { receiveAuthorizationTypedData, withdrawTypedData } from "../typed-data/stealth-withdraw.ts";
import type { RelayerWallet } from "./relayer-wallet.ts";
import { revertMessage } from "./revert.ts";
import { estimate, mustSucceed, withMargin } from "./sweep.ts";

export interface StealthWithdrawChain {
  chainId: number;
  usdc: Address;
  relay: Address;
  client: PublicClient;
  wallet: Pick<RelayerWallet, "address" | "send">;
}

export interface StealthWithdrawSettings {
  /** The most a withdrawal may pay the relayer, in USDC base units (STEALTH_WITHDRAW_MAX_FEE). */
  maxFee: bigint;
  /**
   * The gas's cost now in the chain's USDC at the DEX's price (the gateway's GatewayChain.gasValue: gas x
   * gas price through the router's WETH/USDC pool); null when the chain has no pool to price it.
   */
  gasInUsdc?: ((chainId: number, usdc: Address, gas: bigint) => Promise<bigint | null>) | undefined;
  /**
   * USDC base units one ETH is taken to be worth where the DEX gives no price
   * (STEALTH_WITHDRAW_USDC_PER_ETH): the gas is then priced at maxFeePerGas.
   */
  usdcPerEth: bigint;
  /** Unix seconds. */
  nowSeconds: () => bigint;
}

const WEI_PER_ETH = 10n ** 18n;

/**
 * Checks `w` off-chain (shape, both signatures, the fee bound), then on chain (the nonce unused, the
 * balance, a simulation whose gas the fee must cover), then sends it and reads the relay's Withdrawn log.
 * A refusal throws WithdrawalRefused; an RPC that does not answer throws the wallet's UpstreamUnavailable.
 */
export async function relayStealthWithdrawal(
  chain: StealthWithdrawChain,
  settings: StealthWithdrawSettings,
  w: StealthWithdrawal,
): Promise<WithdrawalSent> {
  const refuse = (code: WithdrawalRefusalCode, message: string): never => {
    throw new WithdrawalRefused(code, message);
  };
  const { authorization: a } = w;
  const now = settings.nowSeconds();
  if (!isAddressEqual(w.token, chain.usdc))
    refuse(
      "stealth_withdraw_invalid",
      `token: only this chain's USDC (${chain.usdc}) is withdrawn gaslessly`,
    );
  if (isAddressEqual(w.destination, zeroAddress) || isAddressEqual(w.destination, w.stealthAddress))
    refuse(
      "stealth_withdraw_invalid",
      "destination: neither the zero address nor the stealth address itself",
    );
  if (a.value <= w.fee) refuse("stealth_withdraw_invalid", "fee: must be below authorization.value");
  if (w.deadline < now) refuse("stealth_withdraw_invalid", "deadline: has passed");
  if (a.validBefore <= now || a.validAfter >= now)
    refuse("stealth_withdraw_invalid", "authorization: not valid now (valid_after < now < valid_before)");
  // The signed relayer is the only sender the relay accepts: another would make this service's send revert.
  if (!isAddressEqual(w.relayer, chain.wallet.address))
    refuse(
      "stealth_relayer_mismatch",
      `relayer: the Withdraw must name this service's relayer on chain ${chain.chainId}, ${chain.wallet.address}`,
    );
  if (w.fee > settings.maxFee)
    refuse("stealth_fee_too_high", `fee: at most ${settings.maxFee} (USDC base units) on this service`);

  const auth = {
    from: w.stealthAddress,
    to: chain.relay,
    value: a.value,
    validAfter: a.validAfter,
    validBefore: a.validBefore,
    nonce: a.nonce,
  };
  const withdraw = {
    destination: w.destination,
    fee: w.fee,
    relayer: w.relayer,
    authNonce: a.nonce,
    deadline: w.deadline,
  };
  // viem recovers offline; a malformed signature is a refusal, not a 500.
  const signedBy = async (check: () => Promise<boolean>) => check().catch(() => false);
  const authOk = await signedBy(() =>
    verifyTypedData({
      address: w.stealthAddress,
      signature: a.signature,
      ...receiveAuthorizationTypedData(chain.chainId, chain.usdc, auth),
    }),
  );
  if (!authOk)
    refuse(
      "stealth_signature_invalid",
      "authorization.signature: not the stealth address's ReceiveWithAuthorization of this value to the relay",
    );
  const withdrawOk = await signedBy(() =>
    verifyTypedData({
      address: w.stealthAddress,
      signature: w.withdrawSignature,
      ...withdrawTypedData(chain.chainId, chain.relay, withdraw),
    }),
  );
  if (!withdrawOk)
    refuse(
      "stealth_signature_invalid",
      "withdraw_signature: not the stealth address's Withdraw of this destination, fee, relayer, nonce and deadline",
    );

  const { client } = chain;
  const [used, balance] = await Promise.all([
    client.readContract({
      address: chain.usdc,
      abi: testUsdcAbi,
      functionName: "authorizationState",
      args: [w.stealthAddress, a.nonce],
    }),
    client.readContract({
      address: chain.usdc,
      abi: testUsdcAbi,
      functionName: "balanceOf",
      args: [w.stealthAddress],
    }),
  ]);
  if (used) refuse("stealth_withdraw_replayed", "authorization.nonce: this authorization was used already");
  if (balance < a.value)
    refuse("stealth_balance_insufficient", `the stealth address holds ${balance}, less than ${a.value}`);

  const { v, r, s } = parseSignature(a.signature);
  const data = encodeFunctionData({
    abi: stealthRelayAbi,
    functionName: "withdraw",
    args: [
      { ...auth, v: Number(v), r, s },
      { destination: w.destination, fee: w.fee, relayer: w.relayer, deadline: w.deadline },
      w.withdrawSignature,
    ],
  });
  // The estimate is the simulation: a call that would revert is refused here, before the relayer pays.
  let gas: bigint;
  try {
    gas = withMargin(
      await estimate(() => client.estimateGas({ account: chain.wallet.address, to: chain.relay, data })),
    );
  } catch (err) {
    if (err instanceof StepReverted) return refuse("stealth_withdraw_reverts", err.message);
    throw err;
  }
  // At the DEX's price where the chain has a pool (as the refund fee floor), else at the setting's.
  const minFee =
    (await settings.gasInUsdc?.(chain.chainId, chain.usdc, gas)) ??
    (await settingPrice(client, gas, settings));
  if (w.fee < minFee)
    refuse(
      "stealth_fee_too_low",
      `fee: at least ${minFee} (USDC base units), the gas this withdrawal costs now`,
    );

  // One step per authorization: the same withdrawal sent twice at once resumes one transaction.
  const step = {
    key: `stealth-withdraw/${chain.chainId}/${w.stealthAddress.toLowerCase()}/${a.nonce.toLowerCase()}`,
    bump: false,
    onSubmitted: async () => {},
  };
  const receipt = await chain.wallet.send(step, async () => ({ to: chain.relay, data, gas }));
  try {
    mustSucceed(receipt);
  } catch (err) {
    return refuse("stealth_withdraw_reverts", revertMessage(err) ?? (err as Error).message);
  }
  const event = parseEventLogs({ abi: stealthRelayAbi, eventName: "Withdrawn", logs: receipt.logs }).find(
    (l) => isAddressEqual(l.address, chain.relay) && l.args.authNonce === a.nonce,
  );
  if (!event)
    return refuse(
      "stealth_withdraw_reverts",
      `transaction ${receipt.transactionHash} holds no Withdrawn log`,
    );
  return {
    txHash: receipt.transactionHash,
    destination: event.args.destination,
    amount: event.args.amount,
    fee: event.args.fee,
  };
}

/** The gas at maxFeePerGas, priced with STEALTH_WITHDRAW_USDC_PER_ETH, in USDC base units rounded up. */
async function settingPrice(
  client: PublicClient,
  gas: bigint,
  settings: StealthWithdrawSettings,
): Promise<bigint> {
  const { maxFeePerGas } = await client.estimateFeesPerGas();
  return (gas * maxFeePerGas * settings.usdcPerEth + WEI_PER_ETH - 1n) / WEI_PER_ETH;
}
