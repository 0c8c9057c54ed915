// BurnerDelegate.sweep on the local anvil chains, through real EIP-7702 delegation (type-4 transactions with the
// burner's authorization), the real Uniswap V2 router and the CCTP V2-shaped bridge: every rule of the Intent
// the delegate enforces, and every way to break it, checked through balances and events. Swaps are small (40 DAI,
// 0.01 ETH) with floors from the live quote: nothing swaps them back, so repeated runs barely move the shared pools.
import { type Address, type Hex, parseEther, parseEventLogs, toFunctionSignature } from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { attesterChainsFromStack, createAttester } from "../../deploy/local/cctp-attester.ts";
import { CCTP_DOMAINS, DEV_ACCOUNTS } from "../../deploy/local/chains.ts";
import {
  burnerDelegateAbi,
  messageTransmitterV2Abi,
  testUsdcAbi,
  tokenMessengerV2Abi,
} from "../../src/chains/evm/abi.ts";
import {
  addressToBytes32,
  decodeBurnBody,
  decodeMessage,
  FINALITY_CONFIRMED,
  FINALITY_FINALIZED,
} from "../../src/chains/evm/settle/cctp-message.ts";
import { type IntentMessage, intentTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import { uniswapV2RouterAbi } from "../../src/chains/evm/uniswap-v2.ts";
import {
  type Ctx,
  callBurner,
  delegateNow,
  expectRevert,
  fund,
  intentFor,
  mined,
  newBurner,
  now,
  setUpChains,
  tokenBalance,
  usdc,
  ZERO,
  ZERO32,
} from "../support/delegate.ts";

const T = 60_000;
const randomAddress = () => privateKeyToAddress(generatePrivateKey());
const feeSink = DEV_ACCOUNTS.platformFeeRecipient.address;

let ctx: (name: "source" | "destination") => Ctx;
beforeAll(async () => {
  ctx = await setUpChains();
}, 180_000);

type Burner = Awaited<ReturnType<typeof newBurner>>["burner"];
const sign = (c: Ctx, burner: Burner, intent: IntentMessage) =>
  burner.signTypedData(intentTypedData(c.chain.chainId, burner.address, intent));

/** The sweep call: (intent, sig, feeBps, bridgeMaxFee, minFinalityThreshold); no recipient, no bridge. */
const sweepCall = (
  intent: IntentMessage,
  sig: Hex,
  feeBps = 80,
  bridgeMaxFee = 0n,
  finality = FINALITY_FINALIZED,
) => ({ functionName: "sweep", args: [intent, sig, feeBps, bridgeMaxFee, finality] }) as const;

/** What the router pays for `amountIn` of `token` in USDC right now (the quote the floor is set from). */
async function quote(c: Ctx, token: Address, amountIn: bigint): Promise<bigint> {
  const router = c.chain.dex?.router as Address;
  const amounts = await c.client.readContract({
    address: router,
    abi: uniswapV2RouterAbi,
    functionName: "getAmountsOut",
    args: [amountIn, [token, c.chain.usdc]],
  });
  return amounts[1] ?? 0n;
}

const allowance = (c: Ctx, token: Address, owner: Address, spender: Address) =>
  c.client.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName: "allowance",
    args: [owner, spender],
  });

function sweptEvent(receipt: { logs: Parameters<typeof parseEventLogs>[0]["logs"] }) {
  const events = parseEventLogs({ abi: burnerDelegateAbi, logs: receipt.logs, eventName: "Swept" });
  expect(events).toHaveLength(1);
  return events[0];
}

describe("sweep, same chain", () => {
  it.each(["source", "destination"] as const)(
    "%s: a type-4 tx delegates the burner and delivers the USDC minus platform and app fees to destAddr",
    async (name) => {
      const c = ctx(name);
      const { burner, auth } = await newBurner(c, usdc(100));
      const appSink = randomAddress();
      const intent = intentFor(c, {
        deadline: (await now(c)) + 3600n,
        minOut: usdc(100),
        maxIn: usdc(100),
        appFeeBps: 50,
        appFeeRecipient: appSink,
      });
      const feeBefore = await tokenBalance(c, feeSink);

      const receipt = await callBurner(c, c.relayer, burner.address, {
        ...sweepCall(intent, await sign(c, burner, intent)),
        authorizationList: [auth],
      });

      expect(receipt.status).toBe("success");
      expect(receipt.type).toBe("eip7702");
      expect(await c.client.getCode({ address: burner.address })).toBe(
        `0xef0100${c.chain.delegate.slice(2).toLowerCase()}`,
      );
      // 100 USDC in: 0.80 platform fee (80 bps), 0.50 app fee (50 bps), 98.70 to the destination
      expect(await tokenBalance(c, intent.destAddr)).toBe(usdc(98.7));
      expect(await tokenBalance(c, appSink)).toBe(usdc(0.5));
      expect((await tokenBalance(c, feeSink)) - feeBefore).toBe(usdc(0.8));
      expect(await tokenBalance(c, burner.address)).toBe(0n);
      const swept = sweptEvent(receipt);
      expect(swept?.address).toBe(burner.address.toLowerCase());
      expect(swept?.args).toEqual({
        salt: intent.salt,
        inToken: c.chain.usdc,
        destAddr: intent.destAddr,
        amountIn: usdc(100),
        usdcOut: usdc(100),
        platformFee: usdc(0.8),
        appFee: usdc(0.5),
        delivered: usdc(98.7),
        destChainId: BigInt(c.chain.chainId),
      });
      // Same chain: no bridge message.
      expect(parseEventLogs({ abi: messageTransmitterV2Abi, logs: receipt.logs })).toEqual([]);
      const used = await c.client.readContract({
        address: burner.address,
        abi: burnerDelegateAbi,
        functionName: "intentSaltUsed",
        args: [intent.salt],
      });
      expect(used).toBe(true);
    },
    T,
  );

  it(
    "takes only maxIn when the burner holds more; a replayed salt reverts and moves nothing",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(30));
      const intent = intentFor(c, { deadline: (await now(c)) + 3600n, maxIn: usdc(20) });
      const call = sweepCall(intent, await sign(c, burner, intent), 0);

      expect(
        (await callBurner(c, c.relayer, burner.address, { ...call, authorizationList: [auth] })).status,
      ).toBe("success");
      expect(await tokenBalance(c, intent.destAddr)).toBe(usdc(20));
      expect(await tokenBalance(c, burner.address)).toBe(usdc(10));

      await expectRevert(c, c.relayer, burner.address, call, "SaltUsed");
      expect(await tokenBalance(c, intent.destAddr)).toBe(usdc(20));
      expect(await tokenBalance(c, burner.address)).toBe(usdc(10));
    },
    T,
  );

  it(
    "refuses a wrong signer, a non-keeper, a changed recipient or destination chain, an expired deadline, a fee above the cap and USDC below minOut",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(10));
      const intent = intentFor(c, { deadline: (await now(c)) + 3600n, minOut: usdc(10) });
      const good = await sign(c, burner, intent);
      // Same typed data, burner's own domain, but signed by another key.
      const forged = await privateKeyToAccount(generatePrivateKey()).signTypedData(
        intentTypedData(c.chain.chainId, burner.address, intent),
      );
      const refuse = (call: ReturnType<typeof sweepCall>, error: string, from = c.relayer) =>
        expectRevert(c, from, burner.address, call, error);

      // The authorization takes effect even though the call reverts, so later calls need none.
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { ...sweepCall(intent, forged), authorizationList: [auth] },
        "BadSignature",
      );
      await refuse(sweepCall(intent, good), "NotKeeper", c.funded);
      // The keeper cannot redirect: the recipient and the destination are signed, there is no argument for them.
      await refuse(sweepCall({ ...intent, destAddr: c.relayer.account.address }, good), "BadSignature");
      await refuse(
        sweepCall({ ...intent, destChainId: BigInt(ctx("destination").chain.chainId) }, good),
        "BadSignature",
      );
      await refuse(sweepCall({ ...intent, minOut: 0n }, good), "BadSignature");
      await refuse(sweepCall(intent, good, 101), "FeeTooHigh");

      const expired = intentFor(c, { deadline: (await now(c)) - 1n });
      await refuse(sweepCall(expired, await sign(c, burner, expired)), "Expired");
      // USDC is not swapped: the amount itself is held to minOut (10 USDC held, 10.000001 asked).
      const greedy = intentFor(c, { deadline: (await now(c)) + 3600n, minOut: usdc(10) + 1n });
      await refuse(sweepCall(greedy, await sign(c, burner, greedy)), "BelowMinOut");
      // A same-chain sweep pays no bridge fee.
      await refuse(sweepCall(intent, good, 80, 1n), "BridgeFeeTooHigh");
      // Signed, but with nowhere to pay: no recipient, or an app fee without its recipient.
      for (const broken of [
        intentFor(c, { deadline: intent.deadline, destAddr: ZERO }),
        intentFor(c, { deadline: intent.deadline, appFeeBps: 10 }),
      ]) {
        await refuse(sweepCall(broken, await sign(c, burner, broken)), "ZeroAddress");
      }
      // Signed for a token the burner does not hold.
      const absent = intentFor(c, { deadline: intent.deadline, inToken: c.chain.dex?.dai as Address });
      await refuse(sweepCall(absent, await sign(c, burner, absent)), "NothingToMove");

      expect(await tokenBalance(c, burner.address)).toBe(usdc(10));
      expect(await tokenBalance(c, intent.destAddr)).toBe(0n);
      // Everything above reverted, so the good call still works.
      const receipt = await callBurner(c, c.relayer, burner.address, sweepCall(intent, good, 0));
      expect(receipt.status).toBe("success");
      expect(await tokenBalance(c, intent.destAddr)).toBe(usdc(10));
    },
    T,
  );

  it(
    "an intent signed for one chain does not verify on the other",
    async () => {
      const c = ctx("destination");
      const { burner, auth } = await newBurner(c, usdc(5));
      const intent = intentFor(c, { deadline: (await now(c)) + 3600n });
      const sig = await burner.signTypedData(
        intentTypedData(ctx("source").chain.chainId, burner.address, intent),
      );
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { ...sweepCall(intent, sig), authorizationList: [auth] },
        "BadSignature",
      );
      expect(await tokenBalance(c, burner.address)).toBe(usdc(5));
    },
    T,
  );
});

describe("sweep with a swap", () => {
  it(
    "an ERC-20 deposit is swapped through the router; a floor above the pool's output reverts the swap and moves nothing",
    async () => {
      const c = ctx("source");
      const dai = c.chain.dex?.dai as Address;
      const { burner, auth } = await newBurner(c, usdc(3)); // USDC already there is not the swap's output
      await fund(c, burner.address, dai, parseEther("50"));
      const deadline = (await now(c)) + 3600n;
      const out = await quote(c, dai, parseEther("40"));
      expect(out).toBeGreaterThan(0n);

      const tooHigh = intentFor(c, { deadline, inToken: dai, maxIn: parseEther("40"), minOut: out + 1n });
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { ...sweepCall(tooHigh, await sign(c, burner, tooHigh)), authorizationList: [auth] },
        "UniswapV2Router: INSUFFICIENT_OUTPUT_AMOUNT",
      );
      expect(await tokenBalance(c, burner.address, dai)).toBe(parseEther("50"));
      expect(await tokenBalance(c, tooHigh.destAddr)).toBe(0n);

      const atQuote = { ...tooHigh, salt: generatePrivateKey(), minOut: out };
      const feeBefore = await tokenBalance(c, feeSink);
      const receipt = await callBurner(
        c,
        c.relayer,
        burner.address,
        sweepCall(atQuote, await sign(c, burner, atQuote)),
      );
      expect(receipt.status).toBe("success");
      const platformFee = (out * 80n) / 10_000n;
      expect(sweptEvent(receipt)?.args).toMatchObject({
        inToken: dai,
        amountIn: parseEther("40"),
        usdcOut: out,
        platformFee,
        appFee: 0n,
        delivered: out - platformFee,
      });
      expect(await tokenBalance(c, atQuote.destAddr)).toBe(out - platformFee);
      expect((await tokenBalance(c, feeSink)) - feeBefore).toBe(platformFee);
      // maxIn bounds what is sold; the USDC the burner held before is left alone.
      expect(await tokenBalance(c, burner.address, dai)).toBe(parseEther("10"));
      expect(await tokenBalance(c, burner.address)).toBe(usdc(3));
      // The router was approved for exactly what it took.
      expect(await allowance(c, dai, burner.address, c.chain.dex?.router as Address)).toBe(0n);
    },
    T,
  );

  it(
    "a native ETH deposit is wrapped through WETH and swapped to USDC",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, 0n);
      await delegateNow(c, burner.address, auth);
      await fund(c, burner.address, ZERO, parseEther("0.02"));
      const weth = c.chain.dex?.weth as Address;
      const out = await quote(c, weth, parseEther("0.01"));
      expect(out).toBeGreaterThan(0n);
      const intent = intentFor(c, {
        deadline: (await now(c)) + 3600n,
        inToken: ZERO,
        maxIn: parseEther("0.01"),
        minOut: out,
        appFeeBps: 25,
        appFeeRecipient: randomAddress(),
      });
      const receipt = await callBurner(
        c,
        c.relayer,
        burner.address,
        sweepCall(intent, await sign(c, burner, intent), 100),
      );
      expect(receipt.status).toBe("success");
      const platformFee = out / 100n;
      const appFee = (out * 25n) / 10_000n;
      expect(sweptEvent(receipt)?.args).toMatchObject({
        inToken: ZERO,
        amountIn: parseEther("0.01"),
        usdcOut: out,
        platformFee,
        appFee,
        delivered: out - platformFee - appFee,
      });
      expect(await tokenBalance(c, intent.destAddr)).toBe(out - platformFee - appFee);
      expect(await tokenBalance(c, intent.appFeeRecipient)).toBe(appFee);
      expect(await tokenBalance(c, burner.address, ZERO)).toBe(parseEther("0.01"));
      expect(await tokenBalance(c, burner.address, weth)).toBe(0n);
    },
    T,
  );
});

describe("sweep across chains", () => {
  it(
    "burns through the allowlisted TokenMessengerV2 for the signed destAddr on the signed chain's domain, and the destination mints it",
    async () => {
      const src = ctx("source");
      const dst = ctx("destination");
      const { burner, auth } = await newBurner(src, usdc(50));
      const intent = intentFor(src, {
        deadline: (await now(src)) + 3600n,
        destChainId: BigInt(dst.chain.chainId),
        minOut: usdc(50),
      });
      // 50 USDC at 80 bps: 0.40 platform fee, 49.60 burned; the bridge fee may be up to 20 bps of that.
      const maxFee = (usdc(49.6) * 20n) / 10_000n;
      const sig = await sign(src, burner, intent);
      await expectRevert(
        src,
        src.relayer,
        burner.address,
        { ...sweepCall(intent, sig, 80, maxFee + 1n, FINALITY_CONFIRMED), authorizationList: [auth] },
        "BridgeFeeTooHigh",
      );

      const receipt = await callBurner(
        src,
        src.relayer,
        burner.address,
        sweepCall(intent, sig, 80, maxFee, FINALITY_CONFIRMED),
      );
      expect(receipt.status).toBe("success");
      expect(sweptEvent(receipt)?.args).toMatchObject({
        delivered: usdc(49.6),
        destChainId: BigInt(dst.chain.chainId),
      });
      expect(await tokenBalance(src, burner.address)).toBe(0n);
      expect(
        await allowance(src, src.chain.usdc, burner.address, src.chain.cctp?.tokenMessenger as Address),
      ).toBe(0n);

      const [deposit] = parseEventLogs({
        abi: tokenMessengerV2Abi,
        logs: receipt.logs,
        eventName: "DepositForBurn",
      });
      expect(deposit?.address).toBe(src.chain.cctp?.tokenMessenger.toLowerCase());
      expect(deposit?.args).toMatchObject({
        burnToken: src.chain.usdc,
        amount: usdc(49.6),
        depositor: burner.address,
        mintRecipient: addressToBytes32(intent.destAddr),
        destinationDomain: CCTP_DOMAINS.destination,
        destinationCaller: ZERO32,
        maxFee,
        minFinalityThreshold: FINALITY_CONFIRMED,
      });
      const [sent] = parseEventLogs({
        abi: messageTransmitterV2Abi,
        logs: receipt.logs,
        eventName: "MessageSent",
      });
      expect(sent?.address).toBe(src.chain.cctp?.messageTransmitter.toLowerCase());
      const header = decodeMessage(sent?.args.message as Hex);
      expect(header).toMatchObject({
        sourceDomain: CCTP_DOMAINS.source,
        destinationDomain: CCTP_DOMAINS.destination,
        destinationCaller: ZERO32,
      });
      expect(decodeBurnBody(header.messageBody)).toMatchObject({
        burnToken: addressToBytes32(src.chain.usdc),
        mintRecipient: addressToBytes32(intent.destAddr),
        amount: usdc(49.6),
        messageSender: addressToBytes32(burner.address),
      });

      // Attested and relayed by someone who is not the keeper: the message decides who gets paid.
      const attester = createAttester({
        chains: attesterChainsFromStack({ chains: [src.chain, dst.chain] }),
        privateKey: DEV_ACCOUNTS.attester.privateKey,
      });
      const [attested] = (await attester.messages(CCTP_DOMAINS.source, receipt.transactionHash)) ?? [];
      expect(attested?.status).toBe("complete");
      const relay = await dst.funded.writeContract({
        address: dst.chain.cctp?.messageTransmitter as Address,
        abi: messageTransmitterV2Abi,
        functionName: "receiveMessage",
        args: [attested?.message as Hex, attested?.attestation as Hex],
      });
      expect((await mined(dst, relay)).status).toBe("success");
      expect(await tokenBalance(dst, intent.destAddr)).toBe(usdc(49.6));
    },
    T,
  );

  it(
    "the bridge is fixed by construction: no address argument, and a destination chain off the route table reverts",
    async () => {
      const sweep = burnerDelegateAbi.find((f) => f.type === "function" && f.name === "sweep");
      expect(toFunctionSignature(sweep as never)).toBe(
        "sweep((uint256,address,uint256,uint256,bytes32,address,uint256,uint16,address),bytes,uint16,uint256,uint32)",
      );
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(5));
      const intent = intentFor(c, { deadline: (await now(c)) + 3600n, destChainId: 999n });
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { ...sweepCall(intent, await sign(c, burner, intent)), authorizationList: [auth] },
        "UnsupportedDestination",
      );
      expect(await tokenBalance(c, burner.address)).toBe(usdc(5));
    },
    T,
  );
});
