// SubscriptionManager on a private anvil (automine, so the test moves the clock with evm_increaseTime without
// touching the shared chains): every rule of charge, cancel and cancelBySig, and every way to break them, shown
// by the custom error eth_call names, the mined transaction reverting, balances and events. The last test checks
// the local stack deployed it with the relayer and the platform fee recipient.
import {
  type Abi,
  type Address,
  createWalletClient,
  encodeDeployData,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
  toFunctionSelector,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEV_ACCOUNTS } from "../../deploy/local/chains.ts";
import type { ChargeSubscriptionCommand } from "../../src/chains/adapter.ts";
import { subscriptionManagerAbi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { loadArtifacts } from "../../src/chains/evm/contracts.ts";
import { subscriptionCallRequest } from "../../src/chains/evm/subscriptions/subscription-calls.ts";
import {
  cancelTypedData,
  type MandateMessage,
  mandateDigest,
  mandateTypedData,
} from "../../src/chains/evm/subscriptions/subscriptions.ts";
import { StepReverted, StepTooEarly } from "../../src/chains/execution-errors.ts";
import { toDomainMandate } from "../../src/gateway/admin/subscription-admin.ts";
import { startTestChain, type TestChain } from "../support/anvil-chain.ts";
import { revertName, setUpChains } from "../support/delegate.ts";

const T = 60_000;
const ZERO: Address = "0x0000000000000000000000000000000000000000";
const PERIOD = 3_600n;
const AMOUNT = 10_000_000n; // 10 USDC
const feeSink = DEV_ACCOUNTS.platformFeeRecipient.address;
const randomAddress = () => privateKeyToAddress(generatePrivateKey());

let chain: TestChain;
let manager: Address;
let relayer: WalletClient;
const walletOf = (key: Hex) =>
  createWalletClient({
    account: privateKeyToAccount(key),
    chain: chain.client.chain,
    transport: http(chain.url),
  });

beforeAll(async () => {
  chain = await startTestChain({ chainId: 31_990 });
  relayer = walletOf(DEV_ACCOUNTS.relayer.privateKey);
  const { SubscriptionManager } = (await loadArtifacts()).contracts;
  const hash = await relayer.deployContract({
    ...SubscriptionManager,
    args: [DEV_ACCOUNTS.relayer.address, feeSink],
    account: relayer.account ?? null,
    chain: chain.client.chain,
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error("no SubscriptionManager address");
  manager = receipt.contractAddress;
}, T);
afterAll(async () => chain?.stop());

async function now(): Promise<bigint> {
  return (await chain.client.getBlock()).timestamp;
}
async function advance(seconds: bigint): Promise<void> {
  await chain.rpc("evm_increaseTime", [Number(seconds)]);
  await chain.mine();
}
const balance = (owner: Address) =>
  chain.client.readContract({
    address: chain.usdc,
    abi: testUsdcAbi,
    functionName: "balanceOf",
    args: [owner],
  });

/** A fresh payer with ETH for gas, `funds` USDC and the manager approved for `allowance`. */
async function newPayer(funds = AMOUNT * 10n, allowance = AMOUNT * 10n) {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  await chain.rpc("anvil_setBalance", [account.address, `0x${parseEther("1").toString(16)}`]);
  await chain.sendUsdc(account.address, funds);
  const wallet = walletOf(key);
  await approve(wallet, allowance);
  return { account, wallet };
}
async function approve(wallet: WalletClient, allowance: bigint): Promise<void> {
  const hash = await wallet.writeContract({
    address: chain.usdc,
    abi: testUsdcAbi,
    functionName: "approve",
    args: [manager, allowance],
    account: wallet.account ?? null,
    chain: chain.client.chain,
  });
  await chain.client.waitForTransactionReceipt({ hash });
}

type Payer = Awaited<ReturnType<typeof newPayer>>;
async function mandateFor(payer: Payer, over: Partial<MandateMessage> = {}) {
  const m: MandateMessage = {
    payer: payer.account.address,
    token: chain.usdc,
    amount: AMOUNT,
    period: PERIOD,
    start: await now(),
    merchant: randomAddress(),
    appFeeBps: 25,
    appFeeRecipient: randomAddress(),
    salt: generatePrivateKey(),
    ...over,
  };
  const sig = await payer.account.signTypedData(mandateTypedData(chain.chainId, manager, m));
  return { m, sig, digest: mandateDigest(chain.chainId, manager, m) };
}

type Call =
  | { functionName: "charge"; args: readonly [MandateMessage, Hex, bigint, bigint] }
  | { functionName: "cancel"; args: readonly [MandateMessage] }
  | { functionName: "cancelBySig"; args: readonly [MandateMessage, Hex] };

async function send(from: WalletClient, call: Call, gas?: bigint) {
  const hash = await from.writeContract({
    address: manager,
    abi: subscriptionManagerAbi as Abi,
    functionName: call.functionName,
    args: call.args,
    account: from.account ?? null,
    chain: chain.client.chain,
    ...(gas ? { gas } : {}),
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  return { receipt, logs: parseEventLogs({ abi: subscriptionManagerAbi, logs: receipt.logs }) };
}

/** eth_call names the error, and the same call mined with fixed gas (nothing estimated away) reverts. */
async function expectRevert(from: WalletClient, call: Call, error: string): Promise<void> {
  const simulated = chain.client.simulateContract({
    account: from.account ?? null,
    address: manager,
    // the token's errors too: a pull the token refuses reverts with the token's custom error
    abi: [...subscriptionManagerAbi, ...testUsdcAbi] as Abi,
    functionName: call.functionName,
    args: call.args,
  });
  expect(await revertName(simulated, `expected ${call.functionName} to revert with ${error}`)).toBe(error);
  expect((await send(from, call, 500_000n)).receipt.status).toBe("reverted");
}

const charge = (m: MandateMessage, sig: Hex, period = 0n, feeBps = 80n): Call => ({
  functionName: "charge",
  args: [m, sig, period, feeBps],
});

describe("SubscriptionManager", () => {
  it(
    "hashes the Mandate and the Cancel exactly as viem does",
    async () => {
      const payer = await newPayer(0n, 0n);
      const { m, digest } = await mandateFor(payer);
      const read = (functionName: "mandateDigest" | "cancelDigest", args: readonly unknown[]) =>
        chain.client.readContract({
          address: manager,
          abi: subscriptionManagerAbi as Abi,
          functionName,
          args,
        });
      expect(await read("mandateDigest", [m])).toBe(digest);
      const { hashTypedData } = await import("viem");
      expect(await read("cancelDigest", [digest])).toBe(
        hashTypedData(cancelTypedData(chain.chainId, manager, digest)),
      );
    },
    T,
  );

  it(
    "charges a period: platform fee to the platform, app fee to its recipient, the rest to the merchant",
    async () => {
      const payer = await newPayer();
      const { m, sig, digest } = await mandateFor(payer);
      const before = await balance(payer.account.address);
      const sinkBefore = await balance(feeSink);
      const { receipt, logs } = await send(relayer, charge(m, sig, 0n, 80n));
      expect(receipt.status).toBe("success");
      // 10 USDC: 0.08 (80 bps) to the platform, 0.025 (25 bps) app fee, 9.895 to the merchant
      expect(before - (await balance(payer.account.address))).toBe(AMOUNT);
      expect((await balance(feeSink)) - sinkBefore).toBe(80_000n);
      expect(await balance(m.appFeeRecipient)).toBe(25_000n);
      expect(await balance(m.merchant)).toBe(9_895_000n);
      expect(logs.map((l) => l.eventName)).toContain("Charged");
      const charged = logs.find((l) => l.eventName === "Charged");
      expect(charged?.args).toEqual({
        mandate: digest,
        periodIndex: 0n,
        payer: payer.account.address,
        amount: AMOUNT,
        platformFee: 80_000n,
        appFee: 25_000n,
        merchantAmount: 9_895_000n,
      });
    },
    T,
  );

  it(
    "the executor's charge is estimated on the block it lands in: early by the chain's clock is a try to repeat, a period over is final",
    async () => {
      const payer = await newPayer();
      const start = (await now()) + 100n;
      const { m, sig } = await mandateFor(payer, { start });
      const command = (periodIndex: number): ChargeSubscriptionCommand => ({
        type: "ChargeSubscription",
        subscriptionId: "sub_test",
        manager,
        mandate: toDomainMandate(m),
        signature: sig,
        periodIndex,
        attempt: 1,
        feeBps: 80,
      });
      const request = (periodIndex: number) =>
        subscriptionCallRequest(chain.client, DEV_ACCOUNTS.relayer.address, command(periodIndex))();
      const early = await request(0).catch((err: unknown) => err);
      expect(early).toBeInstanceOf(StepTooEarly);
      expect((early as StepTooEarly).retryable).toBe(true);
      // The next block opens the period while the latest is still before it: the latest block's
      // estimate would revert PeriodNotStarted, the pending block's passes.
      await chain.rpc("evm_setNextBlockTimestamp", [Number(start)]);
      expect((await chain.client.getBlock()).timestamp).toBeLessThan(start);
      expect((await request(0)).gas).toBeGreaterThan(0n);
      await chain.mine(); // the block at the period's start
      await advance(PERIOD);
      const over = await request(0).catch((err: unknown) => err);
      expect(over).toBeInstanceOf(StepReverted);
      expect((over as StepReverted).message).toMatch(/PeriodOver/);
    },
    T,
  );

  it(
    "charges each period once, only while it is current",
    async () => {
      const payer = await newPayer();
      const start = (await now()) + 100n;
      const { m, sig } = await mandateFor(payer, { start });
      await expectRevert(relayer, charge(m, sig, 0n), "PeriodNotStarted");
      await advance(100n);
      expect((await send(relayer, charge(m, sig, 0n))).receipt.status).toBe("success");
      await expectRevert(relayer, charge(m, sig, 0n), "AlreadyCharged");
      await expectRevert(relayer, charge(m, sig, 1n), "PeriodNotStarted");
      await advance(PERIOD);
      await expectRevert(relayer, charge(m, sig, 0n), "PeriodOver");
      expect((await send(relayer, charge(m, sig, 1n))).receipt.status).toBe("success");
      // a period nobody charged stays missed; the next one still charges
      await advance(PERIOD * 2n);
      await expectRevert(relayer, charge(m, sig, 2n), "PeriodOver");
      expect((await send(relayer, charge(m, sig, 3n))).receipt.status).toBe("success");
      expect(await balance(m.merchant)).toBe(3n * 9_895_000n);
    },
    T,
  );

  it(
    "refuses a charge from anyone but the relayer, the payer included",
    async () => {
      const payer = await newPayer();
      const { m, sig } = await mandateFor(payer);
      await expectRevert(payer.wallet, charge(m, sig), "NotRelayer");
      await expectRevert((await newPayer(0n, 0n)).wallet, charge(m, sig), "NotRelayer");
    },
    T,
  );

  it(
    "caps the platform fee at 100 bps and both fees at the amount",
    async () => {
      const payer = await newPayer();
      const { m, sig } = await mandateFor(payer);
      await expectRevert(relayer, charge(m, sig, 0n, 101n), "FeeTooHigh");
      const greedy = await mandateFor(payer, { appFeeBps: 9_950 });
      await expectRevert(relayer, charge(greedy.m, greedy.sig, 0n, 100n), "FeeTooHigh");
      expect((await send(relayer, charge(m, sig, 0n, 100n))).receipt.status).toBe("success");
    },
    T,
  );

  it(
    "refuses a mandate that was altered, signed by someone else, or signed for another manager",
    async () => {
      const payer = await newPayer();
      const { m, sig } = await mandateFor(payer);
      await expectRevert(relayer, charge({ ...m, amount: AMOUNT * 2n }, sig), "BadSignature");
      await expectRevert(relayer, charge({ ...m, merchant: randomAddress() }, sig), "BadSignature");
      const stranger = privateKeyToAccount(generatePrivateKey());
      const forged = await stranger.signTypedData(mandateTypedData(chain.chainId, manager, m));
      await expectRevert(relayer, charge(m, forged), "BadSignature");
      const elsewhere = await payer.account.signTypedData(
        mandateTypedData(chain.chainId, randomAddress(), m),
      );
      await expectRevert(relayer, charge(m, elsewhere), "BadSignature");
      const otherChain = await payer.account.signTypedData(mandateTypedData(1, manager, m));
      await expectRevert(relayer, charge(m, otherChain), "BadSignature");
    },
    T,
  );

  it(
    "refuses a zero amount or period, a zero merchant, and an app fee without a recipient",
    async () => {
      const payer = await newPayer();
      const zeroAmount = await mandateFor(payer, { amount: 0n });
      await expectRevert(relayer, charge(zeroAmount.m, zeroAmount.sig), "InvalidMandate");
      const zeroPeriod = await mandateFor(payer, { period: 0n });
      await expectRevert(relayer, charge(zeroPeriod.m, zeroPeriod.sig), "InvalidMandate");
      const noMerchant = await mandateFor(payer, { merchant: ZERO });
      await expectRevert(relayer, charge(noMerchant.m, noMerchant.sig), "ZeroAddress");
      const noAppRecipient = await mandateFor(payer, { appFeeRecipient: ZERO });
      await expectRevert(relayer, charge(noAppRecipient.m, noAppRecipient.sig), "ZeroAddress");
      const noAppFee = await mandateFor(payer, { appFeeBps: 0, appFeeRecipient: ZERO });
      expect((await send(relayer, charge(noAppFee.m, noAppFee.sig))).receipt.status).toBe("success");
      expect(await balance(noAppFee.m.merchant)).toBe(AMOUNT - 80_000n);
    },
    T,
  );

  it(
    "moves nothing when the allowance or the balance is short, and the period can be retried",
    async () => {
      const payer = await newPayer(AMOUNT * 10n, 0n);
      const { m, sig } = await mandateFor(payer);
      await expectRevert(relayer, charge(m, sig), "ERC20InsufficientAllowance");
      const poor = await newPayer(AMOUNT - 1n);
      const short = await mandateFor(poor);
      await expectRevert(relayer, charge(short.m, short.sig), "ERC20InsufficientBalance");
      expect(await balance(poor.account.address)).toBe(AMOUNT - 1n);
      await approve(payer.wallet, AMOUNT);
      expect((await send(relayer, charge(m, sig))).receipt.status).toBe("success");
    },
    T,
  );

  it(
    "lets only the payer cancel on chain, once, and nothing charges after it",
    async () => {
      const payer = await newPayer();
      const { m, sig, digest } = await mandateFor(payer);
      await expectRevert(relayer, { functionName: "cancel", args: [m] }, "NotPayer");
      const { receipt, logs } = await send(payer.wallet, { functionName: "cancel", args: [m] });
      expect(receipt.status).toBe("success");
      expect(logs.map((l) => [l.eventName, l.args])).toEqual([["Canceled", { mandate: digest }]]);
      await expectRevert(relayer, charge(m, sig), "MandateCanceled");
      await expectRevert(payer.wallet, { functionName: "cancel", args: [m] }, "MandateCanceled");
      const cancelSig = await payer.account.signTypedData(cancelTypedData(chain.chainId, manager, digest));
      await expectRevert(relayer, { functionName: "cancelBySig", args: [m, cancelSig] }, "MandateCanceled");
    },
    T,
  );

  it(
    "relays the payer's signed Cancel from any account, once; a Cancel by anyone else is refused",
    async () => {
      const payer = await newPayer();
      const { m, sig, digest } = await mandateFor(payer);
      const other = await mandateFor(payer);
      const stranger = privateKeyToAccount(generatePrivateKey());
      const forged = await stranger.signTypedData(cancelTypedData(chain.chainId, manager, digest));
      await expectRevert(relayer, { functionName: "cancelBySig", args: [m, forged] }, "BadSignature");
      const forOther = await payer.account.signTypedData(
        cancelTypedData(chain.chainId, manager, other.digest),
      );
      await expectRevert(relayer, { functionName: "cancelBySig", args: [m, forOther] }, "BadSignature");
      // the mandate signature itself is not a Cancel
      await expectRevert(relayer, { functionName: "cancelBySig", args: [m, sig] }, "BadSignature");

      const cancelSig = await payer.account.signTypedData(cancelTypedData(chain.chainId, manager, digest));
      const anyone = await newPayer(0n, 0n);
      const { receipt, logs } = await send(anyone.wallet, {
        functionName: "cancelBySig",
        args: [m, cancelSig],
      });
      expect(receipt.status).toBe("success");
      expect(logs.map((l) => [l.eventName, l.args])).toEqual([["Canceled", { mandate: digest }]]);
      await expectRevert(relayer, { functionName: "cancelBySig", args: [m, cancelSig] }, "MandateCanceled");
      await expectRevert(relayer, charge(m, sig), "MandateCanceled");
      // the other mandate of the same payer is untouched
      expect((await send(relayer, charge(other.m, other.sig))).receipt.status).toBe("success");
    },
    T,
  );
});

describe("SubscriptionManager's constructor", () => {
  it(
    "refuses a zero relayer or a zero platform fee recipient",
    async () => {
      const { SubscriptionManager } = (await loadArtifacts()).contracts;
      for (const args of [
        [ZERO, feeSink],
        [DEV_ACCOUNTS.relayer.address, ZERO],
      ] as const) {
        const deploying = chain.client.call({
          account: DEV_ACCOUNTS.relayer.address,
          data: encodeDeployData({ ...SubscriptionManager, args }),
        });
        const err = await deploying.then(
          () => null,
          (e: unknown) => e as Error,
        );
        expect(err?.message, `deploy with ${args.join(", ")}`).toMatch(/revert/i);
        // the revert data is ZeroAddress()'s selector
        expect(JSON.stringify(err, Object.getOwnPropertyNames(err))).toContain(
          toFunctionSelector("ZeroAddress()").slice(2),
        );
      }
    },
    T,
  );
});

describe("the local stack", () => {
  it("deploys the manager on each chain with the relayer and the platform fee recipient", async () => {
    const ctx = await setUpChains();
    for (const name of ["source", "destination"] as const) {
      const c = ctx(name);
      const address = c.chain.subscriptions;
      expect(address, `${name} has a subscriptions manager`).toMatch(/^0x[0-9a-fA-F]{40}$/);
      if (!address) continue;
      const read = (functionName: "RELAYER" | "PLATFORM_FEE_RECIPIENT") =>
        c.client.readContract({ address, abi: subscriptionManagerAbi, functionName });
      expect(await read("RELAYER")).toBe(c.chain.relayer.address);
      expect(await read("PLATFORM_FEE_RECIPIENT")).toBe(feeSink);
    }
  }, 180_000);
});
