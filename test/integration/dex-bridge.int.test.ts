// Uniswap V2 and the CCTP V2-shaped bridge on the real anvil chains of the local stack: swaps through the
// router with an output floor, and a burn on the source chain attested by the local attester (over HTTP, in
// Circle's wire form) and received on the destination chain, with every way to break the receive we guard.
import {
  type Abi,
  type Address,
  type Hex,
  keccak256,
  maxUint256,
  parseEther,
  parseEventLogs,
  toFunctionSignature,
} from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AttestedMessage,
  attesterChainsFromStack,
  createAttester,
  startAttesterServer,
} from "../../deploy/local/cctp-attester.ts";
import { CCTP_DOMAINS, DEV_ACCOUNTS, type LocalChain } from "../../deploy/local/chains.ts";
import { loadUniswapArtifacts } from "../../deploy/local/dex.ts";
import {
  messageTransmitterV2Abi,
  testErc20Abi,
  testUsdcAbi,
  tokenMessengerV2Abi,
} from "../../src/chains/evm/abi.ts";
import {
  addressToBytes32,
  decodeBurnBody,
  decodeMessage,
  encodeBurnBody,
  encodeMessage,
  FINALITY_FINALIZED,
} from "../../src/chains/evm/settle/cctp-message.ts";
import {
  uniswapV2FactoryAbi,
  uniswapV2PairAbi,
  uniswapV2RouterAbi,
  weth9Abi,
} from "../../src/chains/evm/uniswap-v2.ts";
import {
  type Ctx,
  mined,
  revertName,
  setUpChains,
  succeeded,
  tokenBalance,
  usdc,
  ZERO32,
} from "../support/delegate.ts";

type Side = Ctx & { dex: NonNullable<LocalChain["dex"]>; cctp: NonNullable<LocalChain["cctp"]> };
/** A chain's context plus the DEX and the bridge the stack deployed on it. */
function side(c: Ctx): Side {
  const { dex, cctp } = c.chain;
  if (!dex || !cctp) throw new Error(`${c.chain.name}: the stack deployed no DEX or bridge`);
  return { ...c, dex, cctp };
}

let src: Side;
let dst: Side;
let attesterUrl: string;
let stopAttester: () => Promise<void>;

beforeAll(async () => {
  const ctx = await setUpChains();
  [src, dst] = [side(ctx("source")), side(ctx("destination"))];
  const server = await startAttesterServer({
    chains: attesterChainsFromStack({ chains: [src.chain, dst.chain] }),
    privateKey: DEV_ACCOUNTS.attester.privateKey,
  });
  attesterUrl = server.url;
  stopAttester = server.close;
}, 180_000);
afterAll(() => stopAttester?.());

/** Burns `amount` of the funded account's USDC on the source chain for `mintRecipient` on `destinationDomain`. */
async function burn(amount: bigint, mintRecipient: Address, o: { minFinality?: number; caller?: Hex } = {}) {
  await succeeded(
    src,
    await src.funded.writeContract({
      address: src.chain.usdc,
      abi: testUsdcAbi,
      functionName: "approve",
      args: [src.cctp.tokenMessenger, amount],
    }),
  );
  const hash = await src.funded.writeContract({
    address: src.cctp.tokenMessenger,
    abi: tokenMessengerV2Abi,
    functionName: "depositForBurn",
    args: [
      amount,
      dst.cctp.domain,
      addressToBytes32(mintRecipient),
      src.chain.usdc,
      o.caller ?? ZERO32,
      0n,
      o.minFinality ?? FINALITY_FINALIZED,
    ],
  });
  return (await succeeded(src, hash)).transactionHash;
}

const deadline = async (s: Side) => (await s.client.getBlock()).timestamp + 600n;

describe("build", () => {
  it("every Uniswap signature the deployment and tests call is in the published artifacts", () => {
    const uni = loadUniswapArtifacts();
    const signatures = (abi: Abi) =>
      abi.filter((f) => f.type === "function").map((f) => toFunctionSignature(f as never));
    const pairs = [
      [uniswapV2RouterAbi, uni.router.abi],
      [uniswapV2FactoryAbi, uni.factory.abi],
      [uniswapV2PairAbi, uni.pair.abi],
      [weth9Abi, uni.weth.abi],
    ] as const;
    for (const [ours, published] of pairs) {
      expect(signatures(published)).toEqual(expect.arrayContaining(signatures(ours as Abi)));
    }
  });
});

describe("uniswap v2", () => {
  it.each(["source", "destination"] as const)(
    "%s: router, factory and the seeded pools line up",
    async (name) => {
      const s = name === "source" ? src : dst;
      const read = <F extends "factory" | "WETH">(functionName: F) =>
        s.client.readContract({ address: s.dex.router, abi: uniswapV2RouterAbi, functionName });
      expect(await read("factory")).toBe(s.dex.factory);
      expect(await read("WETH")).toBe(s.dex.weth);
      for (const [token, pair] of [
        [s.dex.dai, s.dex.pairs.daiUsdc],
        [s.dex.weth, s.dex.pairs.wethUsdc],
      ] as const) {
        const onChain = await s.client.readContract({
          address: s.dex.factory,
          abi: uniswapV2FactoryAbi,
          functionName: "getPair",
          args: [token, s.chain.usdc],
        });
        expect(onChain).toBe(pair);
        const [r0, r1] = await s.client.readContract({
          address: pair,
          abi: uniswapV2PairAbi,
          functionName: "getReserves",
        });
        expect(r0 > 0n && r1 > 0n).toBe(true);
      }
    },
  );

  /** The router's quote for one hop, checked against Uniswap V2's formula on the pair's current reserves. */
  async function quote(amountIn: bigint, path: readonly [Address, Address], pair: Address): Promise<bigint> {
    const [amounts, [r0, r1], token0] = await Promise.all([
      src.client.readContract({
        address: src.dex.router,
        abi: uniswapV2RouterAbi,
        functionName: "getAmountsOut",
        args: [amountIn, [...path]],
      }),
      src.client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "getReserves" }),
      src.client.readContract({ address: pair, abi: uniswapV2PairAbi, functionName: "token0" }),
    ]);
    const [rIn, rOut] = token0 === path[0] ? [r0, r1] : [r1, r0];
    const expected = (amountIn * 997n * rOut) / (rIn * 1000n + amountIn * 997n);
    expect(amounts[1]).toBe(expected);
    return expected;
  }

  const swap = (path: readonly [Address, Address], amountIn: bigint, floor: bigint, gas?: bigint) =>
    src.funded.writeContract({
      address: src.dex.router,
      abi: uniswapV2RouterAbi,
      functionName: "swapExactTokensForTokens",
      args: [amountIn, floor, [...path], src.funded.account.address, maxUint256],
      ...(gas ? { gas } : {}),
    });

  // Swaps there and back, so repeated runs leave the pool's price where it was (less the fees it keeps).
  it("a swap with its floor at the quote pays the quote; a floor one unit above reverts and moves nothing", async () => {
    const me = src.funded.account.address;
    const pair = src.dex.pairs.daiUsdc;
    for (const token of [src.chain.usdc, src.dex.dai]) {
      const hash = await src.funded.writeContract({
        address: token,
        abi: testErc20Abi,
        functionName: "approve",
        args: [src.dex.router, maxUint256],
      });
      await succeeded(src, hash);
    }
    const usdcToDai = [src.chain.usdc, src.dex.dai] as const;
    const daiOut = await quote(usdc(1_000), usdcToDai, pair);
    const daiBefore = await tokenBalance(src, me, src.dex.dai);
    await succeeded(src, await swap(usdcToDai, usdc(1_000), daiOut));
    expect(await tokenBalance(src, me, src.dex.dai)).toBe(daiBefore + daiOut);

    const daiToUsdc = [src.dex.dai, src.chain.usdc] as const;
    const usdcOut = await quote(daiOut, daiToUsdc, pair);
    const tooHigh = src.client.simulateContract({
      account: src.funded.account,
      address: src.dex.router,
      abi: uniswapV2RouterAbi,
      functionName: "swapExactTokensForTokens",
      args: [daiOut, usdcOut + 1n, [...daiToUsdc], me, await deadline(src)],
    });
    expect(await revertName(tooHigh)).toBe("UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT");
    const usdcBefore = await tokenBalance(src, me, src.chain.usdc);
    const reverted = await mined(src, await swap(daiToUsdc, daiOut, usdcOut + 1n, 300_000n));
    expect(reverted.status).toBe("reverted");
    expect(await tokenBalance(src, me, src.chain.usdc)).toBe(usdcBefore);

    await succeeded(src, await swap(daiToUsdc, daiOut, usdcOut));
    expect(await tokenBalance(src, me, src.chain.usdc)).toBe(usdcBefore + usdcOut);
    expect(await tokenBalance(src, me, src.dex.dai)).toBe(daiBefore);
  });

  it("native ETH swaps through the WETH/USDC pool", async () => {
    const to = privateKeyToAddress(generatePrivateKey());
    const amountIn = parseEther("0.01"); // small: nothing swaps it back, so runs barely move the pool
    const out = await quote(amountIn, [src.dex.weth, src.chain.usdc], src.dex.pairs.wethUsdc);
    expect(out).toBeGreaterThan(0n);
    const hash = await src.funded.writeContract({
      address: src.dex.router,
      abi: uniswapV2RouterAbi,
      functionName: "swapExactETHForTokens",
      args: [out, [src.dex.weth, src.chain.usdc], to, await deadline(src)],
      value: amountIn,
    });
    await succeeded(src, hash);
    expect(await tokenBalance(src, to, src.chain.usdc)).toBe(out);
  });
});

describe("cctp v2 bridge", () => {
  /** Polls the attester's HTTP API like the executor will, until the message is complete. */
  async function attestation(txHash: Hex): Promise<AttestedMessage> {
    for (let i = 0; i < 50; i++) {
      const res = await fetch(`${attesterUrl}/v2/messages/${src.cctp.domain}?transactionHash=${txHash}`);
      const body = (await res.json()) as { messages?: AttestedMessage[] };
      const m = body.messages?.[0];
      if (res.status === 200 && m?.status === "complete") return m;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`no complete attestation for ${txHash}`);
  }

  const receive = (s: Side, message: Hex, attestation: Hex, from = s.relayer) =>
    s.client.simulateContract({
      account: from.account,
      address: s.cctp.messageTransmitter,
      abi: messageTransmitterV2Abi,
      functionName: "receiveMessage",
      args: [message, attestation],
    });

  it("a burn on the source is attested and minted on the destination exactly once", async () => {
    const recipient = privateKeyToAddress(generatePrivateKey());
    const amount = usdc(25);
    const supplyBefore = await src.client.readContract({
      address: src.chain.usdc,
      abi: testUsdcAbi,
      functionName: "totalSupply",
    });
    const txHash = await burn(amount, recipient);
    expect(
      await src.client.readContract({
        address: src.chain.usdc,
        abi: testUsdcAbi,
        functionName: "totalSupply",
      }),
    ).toBe(supplyBefore - amount);

    const attested = await attestation(txHash);
    expect(attested.cctpVersion).toBe(2);
    const header = decodeMessage(attested.message);
    expect(header).toMatchObject({
      version: 1,
      sourceDomain: CCTP_DOMAINS.source,
      destinationDomain: CCTP_DOMAINS.destination,
      nonce: attested.eventNonce,
      sender: addressToBytes32(src.cctp.tokenMessenger),
      recipient: addressToBytes32(dst.cctp.tokenMessenger),
      finalityThresholdExecuted: FINALITY_FINALIZED,
    });
    expect(decodeBurnBody(header.messageBody)).toMatchObject({
      version: 1,
      burnToken: addressToBytes32(src.chain.usdc),
      mintRecipient: addressToBytes32(recipient),
      amount,
      messageSender: addressToBytes32(src.funded.account.address),
      feeExecuted: 0n,
    });
    // The same query later gives the same signed message: one burn can never carry two nonces.
    expect(await attestation(txHash)).toEqual(attested);

    const attestationHex = attested.attestation as Hex;
    const { request } = await receive(dst, attested.message, attestationHex);
    const receipt = await succeeded(dst, await dst.relayer.writeContract(request));
    const [received] = parseEventLogs({
      abi: messageTransmitterV2Abi,
      eventName: "MessageReceived",
      logs: receipt.logs,
    });
    expect(received?.args.nonce).toBe(attested.eventNonce);
    expect(await tokenBalance(dst, recipient, dst.chain.usdc)).toBe(amount);

    expect(await revertName(receive(dst, attested.message, attestationHex))).toBe("NonceAlreadyUsed");
    const replay = await dst.relayer.writeContract({ ...request, gas: 500_000n });
    expect((await mined(dst, replay)).status).toBe("reverted");
    expect(await tokenBalance(dst, recipient, dst.chain.usdc)).toBe(amount);
  });

  it("a forged attestation, or a genuine one over a changed message, reverts", async () => {
    const recipient = privateKeyToAddress(generatePrivateKey());
    const attested = await attestation(await burn(usdc(3), recipient));
    const forger = privateKeyToAccount(generatePrivateKey());
    const forged = await forger.sign({ hash: keccak256(attested.message) });
    expect(await revertName(receive(dst, attested.message, forged))).toBe("InvalidAttester");

    const header = decodeMessage(attested.message);
    const body = decodeBurnBody(header.messageBody);
    const inflated = encodeMessage({
      ...header,
      messageBody: encodeBurnBody({
        ...body,
        amount: body.amount * 1000n,
      }),
    });
    expect(await revertName(receive(dst, inflated, attested.attestation as Hex))).toBe("InvalidAttester");
    expect(await revertName(receive(dst, attested.message, "0x1234"))).toBe("InvalidAttestationLength");
    expect(await tokenBalance(dst, recipient, dst.chain.usdc)).toBe(0n);
  });

  it("a message for another domain reverts on the wrong chain, and burns to unknown domains are refused", async () => {
    const attested = await attestation(await burn(usdc(2), privateKeyToAddress(generatePrivateKey())));
    // Genuinely attested for domain 101, relayed to the source chain (domain 100).
    expect(await revertName(receive(src, attested.message, attested.attestation as Hex))).toBe(
      "WrongDestinationDomain",
    );
    // Signed by the real attester key but addressed to a domain nobody has.
    const elsewhere = encodeMessage({ ...decodeMessage(attested.message), destinationDomain: 999 });
    const signed = await privateKeyToAccount(DEV_ACCOUNTS.attester.privateKey).sign({
      hash: keccak256(elsewhere),
    });
    expect(await revertName(receive(dst, elsewhere, signed))).toBe("WrongDestinationDomain");

    const toNowhere = src.client.simulateContract({
      account: src.funded.account,
      address: src.cctp.tokenMessenger,
      abi: tokenMessengerV2Abi,
      functionName: "depositForBurn",
      args: [usdc(1), 999, addressToBytes32(src.funded.account.address), src.chain.usdc, ZERO32, 0n, 2000],
    });
    expect(await revertName(toNowhere)).toBe("NoRemoteTokenMessenger");
  });

  it("a destinationCaller message is received only from that caller", async () => {
    const recipient = privateKeyToAddress(generatePrivateKey());
    const caller = addressToBytes32(dst.relayer.account.address);
    const attested = await attestation(await burn(usdc(4), recipient, { caller }));
    expect(await revertName(receive(dst, attested.message, attested.attestation as Hex, dst.funded))).toBe(
      "WrongDestinationCaller",
    );
    const { request } = await receive(dst, attested.message, attested.attestation as Hex);
    await succeeded(dst, await dst.relayer.writeContract(request));
    expect(await tokenBalance(dst, recipient, dst.chain.usdc)).toBe(usdc(4));
  });
});

describe("attester", () => {
  it("attests a fast message at once and holds a standard one until it is deep enough", async () => {
    const strict = createAttester({
      chains: attesterChainsFromStack({ chains: [src.chain] }),
      privateKey: DEV_ACCOUNTS.attester.privateKey,
      finalizedDepth: 1_000_000,
    });
    const recipient = privateKeyToAddress(generatePrivateKey());
    const standard = await strict.messages(
      src.cctp.domain,
      await burn(usdc(1), recipient, { minFinality: 2000 }),
    );
    expect(standard).toMatchObject([
      { status: "pending_confirmations", attestation: "PENDING", message: "0x" },
    ]);
    const fast = await strict.messages(
      src.cctp.domain,
      await burn(usdc(1), recipient, { minFinality: 1000 }),
    );
    expect(fast?.[0]?.status).toBe("complete");
    expect(decodeMessage(fast?.[0]?.message as Hex).finalityThresholdExecuted).toBe(1000);
  });

  it("answers Circle's error shapes: 400 for a bad domain or hash, 404 for a transaction without a message", async () => {
    const get = async (p: string) => {
      const res = await fetch(`${attesterUrl}${p}`);
      return { status: res.status, body: (await res.json()) as { error?: string } };
    };
    const hash = `0x${"ab".repeat(32)}`;
    expect(await get(`/v2/messages/abc?transactionHash=${hash}`)).toMatchObject({ status: 400 });
    expect(await get(`/v2/messages/7?transactionHash=${hash}`)).toMatchObject({ status: 400 });
    expect(await get(`/v2/messages/${CCTP_DOMAINS.source}?transactionHash=0x12`)).toMatchObject({
      status: 400,
    });
    expect(await get(`/v2/messages/${CCTP_DOMAINS.source}?transactionHash=${hash}`)).toEqual({
      status: 404,
      body: { error: "Message not found" },
    });
  });
});
