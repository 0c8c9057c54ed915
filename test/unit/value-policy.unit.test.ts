import { describe, expect, it } from "vitest";
import { parseChainList } from "../../src/chains/config.ts";
import { chainMoney } from "../../src/chains/money.ts";
import { NATIVE_TOKEN } from "../../src/domain/types.ts";
import { deliveryBelowFloor, inSettlementUnits, valueRoute } from "../../src/domain/value.ts";

// The one money rule (src/domain/value.ts) over every (family, token, destination family), with the
// facts each family gives for a configuration of two EVM chains with CCTP and one Solana chain with
// a vault, as src/chains/money.ts builds them.

const EVM_A = 31337;
const EVM_B = 31338;
const SOL = 792703810;
const EVM_USDC = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const DAI = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512";
const SOL_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const SOL_NATIVE = "So11111111111111111111111111111111111111112";
const FAKE_MINT = "GJdLMKMT8QAgdVHVYByWJd1Bnxbdw5sGgmewU9AysHya";

const cctp = {
  domain: 0,
  messageTransmitter: "0x0000000000000000000000000000000000000001",
  tokenMessenger: "0x0000000000000000000000000000000000000002",
};
const evm = (chainId: number) => ({
  family: "evm",
  name: `evm-${chainId}`,
  chainId,
  rpcUrl: "http://127.0.0.1:8545",
  delegate: "0x0000000000000000000000000000000000000003",
  usdc: EVM_USDC,
  cctp,
});
const parsed = parseChainList([
  evm(EVM_A),
  evm(EVM_B),
  {
    family: "solana",
    name: "solana",
    chainId: SOL,
    rpcUrl: "http://127.0.0.1:8899",
    usdcMint: SOL_USDC,
    vault: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin",
  },
]);
if (!parsed.ok) throw new Error(parsed.issues.join("; "));
const chains = chainMoney(parsed.chains);

type Row = [family: string, chainId: number, token: string, dest: number, priced: boolean, expected: string];
const table: Row[] = [
  // EVM: every accepted token swaps into USDC at the payer's min_out, then stays or is bridged.
  ["evm", EVM_A, EVM_USDC, EVM_A, false, "settle"],
  ["evm", EVM_A, EVM_USDC, EVM_B, true, "settle cross-chain"],
  ["evm", EVM_A, DAI, EVM_B, false, "settle swapped cross-chain"],
  ["evm", EVM_A, NATIVE_TOKEN, EVM_A, true, "settle swapped"],
  ["evm", EVM_A, NATIVE_TOKEN, SOL, false, "asset_not_bridgeable"],
  // Solana: nothing swaps in a sweep; only USDC leaves the chain (the fast fill).
  ["solana", SOL, SOL_USDC, SOL, true, "settle"],
  ["solana", SOL, SOL_USDC, EVM_B, false, "settle cross-chain"],
  ["solana", SOL, SOL_NATIVE, SOL, false, "in_kind"],
  ["solana", SOL, SOL_NATIVE, SOL, true, "checkout_token_unsupported"],
  ["solana", SOL, SOL_NATIVE, EVM_B, false, "asset_not_bridgeable"],
  ["solana", SOL, SOL_NATIVE, EVM_B, true, "checkout_token_unsupported"],
  ["solana", SOL, FAKE_MINT, EVM_A, false, "asset_not_bridgeable"],
  // A chain no family described is never valued.
  ["evm", 999, EVM_USDC, EVM_A, false, "asset_unpriced"],
];

const describeRoute = (r: ReturnType<typeof valueRoute>): string => {
  if (r.type === "refused") return r.rejection.code;
  if (r.type === "in_kind") return "in_kind";
  return ["settle", r.swap ? "swapped" : null, r.crossChain ? "cross-chain" : null].filter(Boolean).join(" ");
};

describe("the money policy: what a deposit is worth and where it may go", () => {
  it.each(table)(
    "%s chain %i, token %s, to chain %i (priced %s): %s",
    (_f, chainId, token, dest, priced, want) => {
      expect(
        describeRoute(valueRoute(chains, { deposit: { chainId, token }, destChainId: dest, priced })),
      ).toBe(want);
    },
  );

  it("never reads lamports as USDC: 0.05 SOL to an EVM destination is refused, not filled as 49.6 USDC", () => {
    const route = valueRoute(chains, {
      deposit: { chainId: SOL, token: SOL_NATIVE },
      destChainId: EVM_B,
      priced: false,
    });
    expect(route).toMatchObject({ type: "refused", rejection: { code: "asset_not_bridgeable" } });
  });

  it("refuses a cross-chain delivery below the destination's floor: its minimum or its transaction's cost, the higher", () => {
    const solToEvmB = (facts: typeof chains) =>
      valueRoute(facts, { deposit: { chainId: SOL, token: SOL_USDC }, destChainId: EVM_B, priced: false });
    const route = solToEvmB(chains);
    // The fast fill's 65,000 gas at 1 gwei and 3,000 USDC per ETH: 0.195 USDC, above the 0.10 minimum.
    expect(deliveryBelowFloor(route, 9_920n, "fill")?.message).toMatch(/below its minimum of 100000/);
    expect(deliveryBelowFloor(route, 194_999n, "fill")?.message).toMatch(
      /below what the relayer's transaction there costs, 195000/,
    );
    expect(deliveryBelowFloor(route, 195_000n, "fill")).toBeNull();
    // The CCTP relay's 150,000 gas: 0.45 USDC.
    expect(deliveryBelowFloor(route, 449_999n, "relay")?.code).toBe("delivery_below_minimum");
    // A destination whose minimum is above what its transaction costs: the minimum is the floor.
    const strict = solToEvmB(
      chains.map((c) => (c.chainId === EVM_B ? { ...c, minDelivery: 1_000_000n } : c)),
    );
    expect(deliveryBelowFloor(strict, 999_999n, "fill")?.code).toBe("delivery_below_minimum");
    expect(deliveryBelowFloor(strict, 1_000_000n, "fill")).toBeNull();
    // Only a cross-chain delivery has a floor.
    const local = valueRoute(chains, {
      deposit: { chainId: SOL, token: SOL_USDC },
      destChainId: SOL,
      priced: false,
    });
    expect(deliveryBelowFloor(local, 1n, "fill")).toBeNull();
  });

  it("converts the settlement asset between chains by their decimals, rounding down", () => {
    const six = { ...chains[0], settlementDecimals: 6 } as (typeof chains)[0];
    const eighteen = { ...six, settlementDecimals: 18 };
    expect(inSettlementUnits(1_234_567n, six, six)).toBe(1_234_567n);
    expect(inSettlementUnits(1_234_567n, six, eighteen)).toBe(1_234_567n * 10n ** 12n);
    expect(inSettlementUnits(10n ** 12n - 1n, eighteen, six)).toBe(0n);
  });

  it("is reached only through the facts a family gives: Solana without a vault reaches no chain", () => {
    const noVault = parseChainList([
      evm(EVM_A),
      { family: "solana", name: "s", chainId: SOL, rpcUrl: "http://127.0.0.1:8899", usdcMint: SOL_USDC },
    ]);
    if (!noVault.ok) throw new Error("config");
    const route = valueRoute(chainMoney(noVault.chains), {
      deposit: { chainId: SOL, token: SOL_USDC },
      destChainId: EVM_A,
      priced: false,
    });
    expect(route).toMatchObject({ type: "refused", rejection: { code: "asset_not_bridgeable" } });
  });
});
