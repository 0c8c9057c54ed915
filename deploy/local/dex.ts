// Uniswap V2 on a local chain, deployed unchanged from the published npm build artifacts (factory, router 02,
// WETH9), with a TestDAI (18 decimals) and two seeded pools: DAI/USDC at 1:1 and WETH/USDC at 3000 USDC per ETH.
import { createRequire } from "node:module";
import {
  type Abi,
  type Address,
  type Hex,
  keccak256,
  maxUint256,
  type PublicClient,
  parseEther,
  parseUnits,
} from "viem";
import { testErc20Abi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import type { Artifact } from "../../src/chains/evm/contracts.ts";
import { pairAddress, uniswapV2FactoryAbi, uniswapV2RouterAbi } from "../../src/chains/evm/uniswap-v2.ts";
import type { TxBatch } from "./batch.ts";

export type LocalDex = {
  factory: Address;
  router: Address;
  weth: Address;
  /** TestDAI: the second ERC-20 (18 decimals), swapped to USDC through the DAI/USDC pool. */
  dai: Address;
  /** keccak256 of UniswapV2Pair's creation code, as hard-coded in the router's pairFor. */
  pairInitCodeHash: Hex;
  pairs: { daiUsdc: Address; wethUsdc: Address };
};

/** Pool seeds: 1M DAI against 1M USDC, 100 WETH against 300k USDC. */
const DEX_SEED = {
  daiUsdc: { dai: parseEther("1000000"), usdc: parseUnits("1000000", 6) },
  wethUsdc: { weth: parseEther("100"), usdc: parseUnits("300000", 6) },
} as const;

type NpmArtifact = { abi: Abi; bytecode: string };
export type UniswapArtifacts = Record<"factory" | "router" | "weth" | "pair", { abi: Abi; bytecode: Hex }> & {
  pairInitCodeHash: Hex;
};

/** Loads the npm artifacts (bytecode there has no 0x) and checks the router was built for this pair code. */
export function loadUniswapArtifacts(): UniswapArtifacts {
  const require = createRequire(import.meta.url);
  const load = (p: string) => {
    const a = require(p) as NpmArtifact;
    return { abi: a.abi, bytecode: `0x${a.bytecode.replace(/^0x/, "")}` as Hex };
  };
  const pair = load("@uniswap/v2-core/build/UniswapV2Pair.json");
  const router = load("@uniswap/v2-periphery/build/UniswapV2Router02.json");
  const pairInitCodeHash = keccak256(pair.bytecode);
  // The router computes pair addresses offline with a hash baked into its code: a factory whose pair code hashes
  // differently deploys fine but every router call then targets empty addresses. Refuse to go on.
  if (!router.bytecode.includes(pairInitCodeHash.slice(2))) {
    throw new Error(
      `UniswapV2Router02's pair init-code hash is not keccak256(UniswapV2Pair) = ${pairInitCodeHash}: ` +
        "@uniswap/v2-core and @uniswap/v2-periphery builds do not match",
    );
  }
  return {
    factory: load("@uniswap/v2-core/build/UniswapV2Factory.json"),
    router,
    weth: load("@uniswap/v2-periphery/build/WETH9.json"),
    pair,
    pairInitCodeHash,
  };
}

/** Queues the whole DEX and its seeded pools on `batch`; returns where everything will be. */
export function queueDex(
  batch: TxBatch,
  uni: UniswapArtifacts,
  testErc20: Artifact,
  usdc: Address,
  deadline: bigint,
): LocalDex {
  const owner = batch.from;
  const factory = batch.deploy("UniswapV2Factory", { ...uni.factory, args: [owner], gas: 5_000_000n });
  const weth = batch.deploy("WETH9", { ...uni.weth, gas: 1_500_000n });
  const router = batch.deploy("UniswapV2Router02", { ...uni.router, args: [factory, weth], gas: 6_000_000n });
  const dai = batch.deploy("TestDAI", {
    ...testErc20,
    args: ["Test DAI", "DAI", 18, owner],
    gas: 2_000_000n,
  });
  const seed = DEX_SEED;
  batch.call("mint DAI", {
    address: dai,
    abi: testErc20Abi,
    functionName: "mint",
    args: [owner, seed.daiUsdc.dai],
    gas: 100_000n,
  });
  batch.call("mint USDC", {
    address: usdc,
    abi: testUsdcAbi,
    functionName: "mint",
    args: [owner, seed.daiUsdc.usdc + seed.wethUsdc.usdc],
    gas: 100_000n,
  });
  for (const token of [dai, usdc]) {
    batch.call("approve router", {
      address: token,
      abi: testErc20Abi,
      functionName: "approve",
      args: [router, maxUint256],
      gas: 100_000n,
    });
  }
  // addLiquidity creates each pair through the factory, so these also prove the router finds the pairs.
  batch.call("seed DAI/USDC", {
    address: router,
    abi: uniswapV2RouterAbi,
    functionName: "addLiquidity",
    args: [
      dai,
      usdc,
      seed.daiUsdc.dai,
      seed.daiUsdc.usdc,
      seed.daiUsdc.dai,
      seed.daiUsdc.usdc,
      owner,
      deadline,
    ],
    gas: 4_000_000n,
  });
  batch.call("seed WETH/USDC", {
    address: router,
    abi: uniswapV2RouterAbi,
    functionName: "addLiquidityETH",
    args: [usdc, seed.wethUsdc.usdc, seed.wethUsdc.usdc, seed.wethUsdc.weth, owner, deadline],
    value: seed.wethUsdc.weth,
    gas: 4_000_000n,
  });
  const pairOf = (a: Address, b: Address) => pairAddress(factory, uni.pairInitCodeHash, a, b);
  return {
    factory,
    router,
    weth,
    dai,
    pairInitCodeHash: uni.pairInitCodeHash,
    pairs: { daiUsdc: pairOf(dai, usdc), wethUsdc: pairOf(weth, usdc) },
  };
}

/** After the batch settled: the factory's pairs are where the router's pairFor says; fails loudly if not. */
export async function verifyDex(
  client: PublicClient,
  dex: LocalDex,
  usdc: Address,
  label: string,
): Promise<void> {
  const checks = [
    ["DAI/USDC", dex.dai, dex.pairs.daiUsdc],
    ["WETH/USDC", dex.weth, dex.pairs.wethUsdc],
  ] as const;
  for (const [name, token, expected] of checks) {
    const actual = await client.readContract({
      address: dex.factory,
      abi: uniswapV2FactoryAbi,
      functionName: "getPair",
      args: [token, usdc],
    });
    if (actual.toLowerCase() !== expected.toLowerCase()) {
      throw new Error(`${label}: factory.getPair(${name}) = ${actual}, router's pairFor = ${expected}`);
    }
  }
}
