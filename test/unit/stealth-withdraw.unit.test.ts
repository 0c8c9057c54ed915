// The relayer's checks of a gasless stealth withdrawal (src/chains/evm/settle/stealth-withdraw.ts) on bodies the
// client library signs (signStealthWithdrawal): every refusal happens before anything is sent, and a valid one is
// sent once with the relay's call. The chain is a stand-in answering the reads; the e2e runs it on the local chain.
import { type Address, decodeFunctionData, type Hex, keccak256, type TransactionReceipt, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { stealthRelayAbi } from "../../src/chains/evm/abi.ts";
import {
  relayStealthWithdrawal,
  type StealthWithdrawChain,
} from "../../src/chains/evm/settle/stealth-withdraw.ts";
import { type StealthWithdrawal, WithdrawalRefused } from "../../src/chains/stealth-withdrawals.ts";
import { signStealthWithdrawal } from "../../src/client/actions/sign-stealth-withdrawal.ts";
import type { StealthWithdrawBody } from "../../src/client/types.ts";

const CHAIN_ID = 31337;
const USDC = privateKeyToAddress(generatePrivateKey());
const RELAY = privateKeyToAddress(generatePrivateKey());
/** The service's relayer: the wallet that sends, and the only relayer a Withdraw may name. */
const RELAYER = privateKeyToAddress(generatePrivateKey());
const NOW = 1_800_000_000;
const VALUE = 25_000_000n;
const FEE = 2_000_000n;
const GAS = 150_000n;
const MAX_FEE_PER_GAS = 2_000_000_000n; // 2 gwei: 150k gas x 2 gwei x 3000 USDC/ETH = 0.9 USDC (x1.2 margin)
const withdrawnTopic = keccak256(toHex("Withdrawn(address,address,bytes32,uint256,uint256,address)"));
const settings = { maxFee: 5_000_000n, usdcPerEth: 3_000_000_000n, nowSeconds: () => BigInt(NOW) };

function fakeChain(state: { used?: boolean; balance?: bigint } = {}) {
  const sent: { to: Address; data: Hex; gas: bigint }[] = [];
  const chain = {
    chainId: CHAIN_ID,
    usdc: USDC,
    relay: RELAY,
    client: {
      readContract: async ({ functionName }: { functionName: string }) =>
        functionName === "authorizationState" ? (state.used ?? false) : (state.balance ?? VALUE),
      estimateGas: async () => GAS,
      estimateFeesPerGas: async () => ({ maxFeePerGas: MAX_FEE_PER_GAS, maxPriorityFeePerGas: 1n }),
    },
    wallet: {
      address: RELAYER,
      async send(_step: unknown, build: () => Promise<{ to: Address; data: Hex; gas: bigint }>) {
        const req = await build();
        sent.push(req);
        const { args } = decodeFunctionData({ abi: stealthRelayAbi, data: req.data });
        const [a, w] = args as unknown as [
          { from: Address; value: bigint; nonce: Hex },
          { destination: Address; fee: bigint; relayer: Address },
        ];
        // A receipt holding the relay's Withdrawn log, as the chain would write it.
        return {
          status: "success",
          transactionHash: `0x${"ab".repeat(32)}`,
          logs: [withdrawnLog(a.from, w.destination, a.nonce, a.value - w.fee, w.fee)],
        } as unknown as TransactionReceipt;
      },
    },
  } as unknown as StealthWithdrawChain;
  return { chain, sent };
}

function withdrawnLog(from: Address, destination: Address, nonce: Hex, amount: bigint, fee: bigint) {
  const word = (v: bigint | string) => BigInt(v).toString(16).padStart(64, "0");
  return {
    address: RELAY,
    topics: [withdrawnTopic, `0x${word(from)}`, `0x${word(destination)}`, nonce],
    data: `0x${word(amount)}${word(fee)}${word(RELAY)}`,
    blockNumber: 1n,
    logIndex: 0,
    transactionIndex: 0,
    transactionHash: `0x${"ab".repeat(32)}`,
    blockHash: `0x${"cd".repeat(32)}`,
    removed: false,
  };
}

const toWithdrawal = (b: StealthWithdrawBody): StealthWithdrawal => ({
  chainId: b.chain_id,
  stealthAddress: b.stealth_address as Address,
  token: b.token as Address,
  destination: b.destination as Address,
  fee: BigInt(b.fee),
  relayer: b.relayer as Address,
  deadline: BigInt(b.deadline),
  authorization: {
    value: BigInt(b.authorization.value),
    validAfter: BigInt(b.authorization.valid_after),
    validBefore: BigInt(b.authorization.valid_before),
    nonce: b.authorization.nonce as Hex,
    signature: b.authorization.signature as Hex,
  },
  withdrawSignature: b.withdraw_signature as Hex,
});

async function signed(over: { fee?: bigint; deadline?: number; relayer?: Address } = {}) {
  const stealth = privateKeyToAccount(generatePrivateKey());
  const destination = privateKeyToAddress(generatePrivateKey());
  const body = await signStealthWithdrawal({
    signer: stealth,
    chainId: CHAIN_ID,
    usdc: USDC,
    relay: RELAY,
    value: VALUE,
    destination,
    fee: over.fee ?? FEE,
    relayer: over.relayer ?? RELAYER,
    now: NOW * 1000,
    ...(over.deadline === undefined ? {} : { deadline: over.deadline }),
  });
  return { stealth, destination, w: toWithdrawal(body) };
}

async function refusal(w: StealthWithdrawal, state?: Parameters<typeof fakeChain>[0]) {
  const { chain, sent } = fakeChain(state);
  const err = await relayStealthWithdrawal(chain, settings, w).then(
    () => null,
    (e: unknown) => e,
  );
  expect(sent, "nothing is sent for a refused withdrawal").toEqual([]);
  expect(err).toBeInstanceOf(WithdrawalRefused);
  return (err as WithdrawalRefused).code;
}

describe("relayStealthWithdrawal", () => {
  it("sends a withdrawal the client signed, once, to the relay, and answers the Withdrawn log's amounts", async () => {
    const { w, destination } = await signed();
    const { chain, sent } = fakeChain();
    const done = await relayStealthWithdrawal(chain, settings, w);
    expect(done).toMatchObject({ amount: VALUE - FEE, fee: FEE });
    expect(done.destination.toLowerCase()).toBe(destination.toLowerCase());
    expect(sent).toHaveLength(1);
    expect(sent[0]?.to).toBe(RELAY);
    // The call names the signed relayer, the one sender the relay accepts and the fee's recipient.
    const { args } = decodeFunctionData({ abi: stealthRelayAbi, data: sent[0]?.data as Hex });
    expect(args?.[1]).toMatchObject({ relayer: RELAYER, fee: FEE });
  });

  it("refuses a Withdraw that names another relayer, or a body whose relayer differs from the signed one", async () => {
    const stranger = privateKeyToAddress(generatePrivateKey());
    // Validly signed, but for a relayer that is not this service's: its send would revert, so none is made.
    const other = (await signed({ relayer: stranger })).w;
    expect(await refusal(other)).toBe("stealth_relayer_mismatch");
    // Signed for this service's relayer, then rewritten to name a stranger (or the other way round).
    const { w } = await signed();
    expect(await refusal({ ...w, relayer: stranger })).toBe("stealth_relayer_mismatch");
    expect(await refusal({ ...other, relayer: RELAYER })).toBe("stealth_signature_invalid");
  });

  it("refuses a body whose destination or fee differs from what the stealth key signed", async () => {
    const { w } = await signed();
    expect(await refusal({ ...w, destination: privateKeyToAddress(generatePrivateKey()) })).toBe(
      "stealth_signature_invalid",
    );
    expect(await refusal({ ...w, fee: FEE + 1n })).toBe("stealth_signature_invalid");
    expect(await refusal({ ...w, authorization: { ...w.authorization, value: VALUE + 1n } })).toBe(
      "stealth_signature_invalid",
    );
    expect(await refusal({ ...w, withdrawSignature: "0x1234" })).toBe("stealth_signature_invalid");
  });

  it("refuses a fee above the bound or below the gas, a used nonce, a short balance, a past deadline, another token", async () => {
    expect(await refusal((await signed({ fee: 5_000_001n })).w)).toBe("stealth_fee_too_high");
    expect(await refusal((await signed({ fee: 1_000n })).w)).toBe("stealth_fee_too_low");
    const { w } = await signed();
    expect(await refusal(w, { used: true })).toBe("stealth_withdraw_replayed");
    expect(await refusal(w, { balance: VALUE - 1n })).toBe("stealth_balance_insufficient");
    expect(await refusal((await signed({ deadline: NOW - 1 })).w)).toBe("stealth_withdraw_invalid");
    expect(await refusal({ ...w, token: privateKeyToAddress(generatePrivateKey()) })).toBe(
      "stealth_withdraw_invalid",
    );
    expect(await refusal({ ...w, destination: w.stealthAddress })).toBe("stealth_withdraw_invalid");
  });

  it("prices the gas at the DEX's price where the chain has a pool, at the setting's where it has none", async () => {
    const asked: unknown[] = [];
    const atDex = (price: bigint | null) => ({
      ...settings,
      gasInUsdc: async (chainId: number, usdc: Address, gas: bigint) => {
        asked.push([chainId, usdc, gas]);
        return price;
      },
    });
    const { w } = await signed(); // a 2 USDC fee
    // The DEX says the gas costs 2.5 USDC: 2 is too low, though the setting's price (~1.1 USDC) would take it.
    const { chain, sent } = fakeChain();
    const err = await relayStealthWithdrawal(chain, atDex(2_500_000n), w).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WithdrawalRefused);
    expect((err as WithdrawalRefused).code).toBe("stealth_fee_too_low");
    expect((err as Error).message).toMatch(/at least 2500000/);
    expect(sent).toEqual([]);
    // Asked for this chain's USDC and the estimate's gas (with its margin).
    expect(asked).toEqual([[CHAIN_ID, USDC, expect.any(BigInt)]]);
    expect((asked[0] as bigint[])[2]).toBeGreaterThanOrEqual(GAS);
    // At 1.5 USDC it is sent; with no pool (null) the setting's price applies, which 2 USDC covers.
    expect(await relayStealthWithdrawal(fakeChain().chain, atDex(1_500_000n), w)).toMatchObject({ fee: FEE });
    expect(await relayStealthWithdrawal(fakeChain().chain, atDex(null), w)).toMatchObject({ fee: FEE });
  });
});
