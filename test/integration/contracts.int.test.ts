// BurnerDelegate on real anvil chains: EIP-7702 delegation, sweep, signed refund and standing refund, each
// checked through balances. Chains are started (or reused) by ensureChains and left running afterwards.
import { fileURLToPath } from "node:url";
import {
  type Abi,
  type Account,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  type Hex,
  hashDomain,
  http,
  type PublicClient,
  parseEther,
  parseEventLogs,
  type SignedAuthorization,
} from "viem";
import {
  generatePrivateKey,
  nonceManager,
  type PrivateKeyAccount,
  privateKeyToAccount,
  privateKeyToAddress,
} from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { DEV_ACCOUNTS, ensureChains, type LocalChain, toViemChain } from "../../deploy/local/chains.ts";
import { burnerDelegateAbi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { loadArtifacts } from "../../src/chains/evm/contracts.ts";
import {
  domainFor,
  type IntentMessage,
  intentTypedData,
  refundTypedData,
  standingRefundTypedData,
} from "../../src/chains/evm/eip712.ts";

const ROOT = fileURLToPath(new URL("../../.local", import.meta.url));
const T = 60_000;
const usdc = (n: number) => BigInt(Math.round(n * 1e6));
const randomAddress = () => privateKeyToAddress(generatePrivateKey());

type Ctx = ReturnType<typeof makeCtx>;
const ctxs = new Map<LocalChain["name"], Ctx>();
const ctx = (name: LocalChain["name"]): Ctx => {
  const c = ctxs.get(name);
  if (!c) throw new Error(`chain ${name} not set up`);
  return c;
};

function makeCtx(chain: LocalChain) {
  const viemChain = toViemChain(chain);
  const transport = http(chain.rpcUrl);
  const client = createPublicClient({ chain: viemChain, transport, pollingInterval: 200 }) as PublicClient;
  const wallet = (account: Account) =>
    createWalletClient({ chain: viemChain, transport, account, pollingInterval: 200 });
  return {
    chain,
    client,
    // nonceManager: tests in this file fire several transactions from the same account back to back
    relayer: wallet(privateKeyToAccount(chain.relayer.privateKey, { nonceManager })),
    funded: wallet(privateKeyToAccount(chain.funded.privateKey, { nonceManager })),
  };
}

beforeAll(async () => {
  const started = Date.now();
  const { chains, started: spawned } = await ensureChains({ root: ROOT, log: (l) => console.log(l) });
  console.log(`ensureChains: ${Date.now() - started} ms (spawned anvil: ${spawned})`);
  for (const c of chains) ctxs.set(c.name, makeCtx(c));
}, 180_000);

// ---------------------------------------------------------------- helpers

async function now(c: Ctx): Promise<bigint> {
  return (await c.client.getBlock()).timestamp;
}

async function tokenBalance(c: Ctx, owner: Address, token: Address = c.chain.usdc): Promise<bigint> {
  if (token === ZERO) return c.client.getBalance({ address: owner });
  return c.client.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName: "balanceOf",
    args: [owner],
  });
}

async function mined(c: Ctx, hash: Hex) {
  return c.client.waitForTransactionReceipt({ hash });
}

/** A fresh burner key holding `amount` USDC, plus its signed EIP-7702 authorization to our delegate. */
async function newBurner(
  c: Ctx,
  amount: bigint,
): Promise<{ burner: PrivateKeyAccount; auth: SignedAuthorization }> {
  const burner = privateKeyToAccount(generatePrivateKey());
  if (amount > 0n) {
    const hash = await c.funded.writeContract({
      address: c.chain.usdc,
      abi: testUsdcAbi,
      functionName: "transfer",
      args: [burner.address, amount],
    });
    expect((await mined(c, hash)).status).toBe("success");
  }
  const nonce = await c.client.getTransactionCount({ address: burner.address });
  const auth = await burner.signAuthorization({ address: c.chain.delegate, chainId: c.chain.chainId, nonce });
  return { burner, auth };
}

function intentFor(c: Ctx, over: Partial<IntentMessage> & Pick<IntentMessage, "deadline">): IntentMessage {
  return {
    destChainId: BigInt(c.chain.chainId),
    destAddr: randomAddress(),
    minOut: 0n,
    salt: generatePrivateKey(),
    inToken: c.chain.usdc,
    maxIn: usdc(1_000_000),
    appFeeBps: 0,
    appFeeRecipient: ZERO,
    ...over,
  };
}

type DelegateCall = {
  functionName: "sweep" | "refund" | "executeStandingRefund";
  args: readonly unknown[];
  authorizationList?: SignedAuthorization[];
};

/** Sends a delegate call to the burner as `from` and returns the receipt. */
async function callBurner(c: Ctx, from: Ctx["relayer"], burner: Address, call: DelegateCall, gas?: bigint) {
  const hash = await from.writeContract({
    address: burner,
    abi: burnerDelegateAbi as Abi,
    functionName: call.functionName,
    args: call.args,
    ...(call.authorizationList ? { authorizationList: call.authorizationList } : {}),
    ...(gas ? { gas } : {}),
  });
  return mined(c, hash);
}

/**
 * Proves a revert twice: eth_call reports the expected custom error, and the same call sent as a real
 * transaction (fixed gas, so nothing is estimated away) is mined with status "reverted".
 */
async function expectRevert(
  c: Ctx,
  from: Ctx["relayer"],
  burner: Address,
  call: DelegateCall,
  error: string,
) {
  const simulated = await c.client
    .simulateContract({
      account: from.account,
      address: burner,
      abi: burnerDelegateAbi as Abi,
      functionName: call.functionName,
      args: call.args,
      ...(call.authorizationList ? { authorizationList: call.authorizationList } : {}),
    })
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  expect(simulated, `expected ${call.functionName} to revert with ${error}`).toBeInstanceOf(BaseError);
  const reverted = (simulated as BaseError).walk((e) => e instanceof ContractFunctionRevertedError);
  expect((reverted as ContractFunctionRevertedError | null)?.data?.errorName).toBe(error);
  expect((await callBurner(c, from, burner, call, 500_000n)).status).toBe("reverted");
}

const ZERO: Address = "0x0000000000000000000000000000000000000000";

// ---------------------------------------------------------------- tests

describe("build", () => {
  it("abi.ts matches the compiler output", async () => {
    const { contracts } = await loadArtifacts({ cacheDir: `${ROOT}/cache/contracts` });
    expect(burnerDelegateAbi).toEqual(contracts.BurnerDelegate.abi);
    expect(testUsdcAbi).toEqual(contracts.TestUSDC.abi);
  });

  it.each(["source", "destination"] as const)(
    "%s: delegate is configured with keeper = relayer and platform fee recipient = account #2",
    async (name) => {
      const c = ctx(name);
      const read = <F extends "KEEPER" | "PLATFORM_FEE_RECIPIENT" | "MAX_FEE_BPS">(functionName: F) =>
        c.client.readContract({ address: c.chain.delegate, abi: burnerDelegateAbi, functionName });
      expect(await read("KEEPER")).toBe(c.chain.relayer.address);
      expect(await read("PLATFORM_FEE_RECIPIENT")).toBe(DEV_ACCOUNTS.platformFeeRecipient.address);
      expect(await read("MAX_FEE_BPS")).toBe(100);
      expect(await c.client.getChainId()).toBe(c.chain.chainId);
      expect(await tokenBalance(c, c.chain.funded.address)).toBeGreaterThan(usdc(1_000));
    },
    T,
  );
});

describe("sweep", () => {
  it.each(["source", "destination"] as const)(
    "%s: relayer type-4 tx delegates the burner and sweeps minus platform and app fees",
    async (name) => {
      const c = ctx(name);
      const { burner, auth } = await newBurner(c, usdc(100));
      const feeSink = DEV_ACCOUNTS.platformFeeRecipient.address;
      const appSink = randomAddress();
      const intent = intentFor(c, {
        deadline: (await now(c)) + 3600n,
        minOut: usdc(98),
        maxIn: usdc(100),
        appFeeBps: 50,
        appFeeRecipient: appSink,
      });
      const sig = await burner.signTypedData(intentTypedData(c.chain.chainId, burner.address, intent));
      const feeBefore = await tokenBalance(c, feeSink);

      const receipt = await callBurner(c, c.relayer, burner.address, {
        functionName: "sweep",
        args: [intent, sig, 80, intent.destAddr],
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
      const [swept] = parseEventLogs({ abi: burnerDelegateAbi, logs: receipt.logs, eventName: "Swept" });
      expect(swept?.address).toBe(burner.address.toLowerCase());
      expect(swept?.args).toMatchObject({ salt: intent.salt, to: intent.destAddr, amount: usdc(98.7) });
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
    "sweeps only maxIn when the burner holds more, and a replayed salt reverts",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(30));
      const intent = intentFor(c, { deadline: (await now(c)) + 3600n, maxIn: usdc(20) });
      const sig = await burner.signTypedData(intentTypedData(c.chain.chainId, burner.address, intent));
      const call = { functionName: "sweep", args: [intent, sig, 0, intent.destAddr] } as const;

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
    "rejects a wrong signer, a non-keeper caller, a foreign recipient and an excessive fee",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(10));
      const intent = intentFor(c, { deadline: (await now(c)) + 3600n });
      const good = await burner.signTypedData(intentTypedData(c.chain.chainId, burner.address, intent));
      // Same typed data, burner's own domain, but signed by another key.
      const stranger = privateKeyToAccount(generatePrivateKey());
      const forged = await stranger.signTypedData(intentTypedData(c.chain.chainId, burner.address, intent));

      // The authorization takes effect even though the call reverts, so later calls need no auth.
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { functionName: "sweep", args: [intent, forged, 0, intent.destAddr], authorizationList: [auth] },
        "BadSignature",
      );
      await expectRevert(
        c,
        c.funded,
        burner.address,
        { functionName: "sweep", args: [intent, good, 0, intent.destAddr] },
        "NotKeeper",
      );
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { functionName: "sweep", args: [intent, good, 0, randomAddress()] },
        "WrongRecipient",
      );
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { functionName: "sweep", args: [intent, good, 101, intent.destAddr] },
        "FeeTooHigh",
      );
      expect(await tokenBalance(c, burner.address)).toBe(usdc(10));
      expect(await tokenBalance(c, intent.destAddr)).toBe(0n);
    },
    T,
  );

  it(
    "cross-chain intent pays the keeper's bridge address and enforces minOut on the amount sent",
    async () => {
      const c = ctx("source");
      const dest = ctx("destination").chain;
      const { burner, auth } = await newBurner(c, usdc(50));
      const bridge = randomAddress();
      const deadline = (await now(c)) + 3600n;
      // 50 USDC at 80 bps leaves 49.60: a floor of 49.61 must fail, 49.60 must pass.
      const tight = intentFor(c, { deadline, destChainId: BigInt(dest.chainId), minOut: usdc(49.61) });
      const tightSig = await burner.signTypedData(intentTypedData(c.chain.chainId, burner.address, tight));
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { functionName: "sweep", args: [tight, tightSig, 80, bridge], authorizationList: [auth] },
        "BelowMinOut",
      );

      const ok = { ...tight, salt: generatePrivateKey(), minOut: usdc(49.6) };
      const okSig = await burner.signTypedData(intentTypedData(c.chain.chainId, burner.address, ok));
      const receipt = await callBurner(c, c.relayer, burner.address, {
        functionName: "sweep",
        args: [ok, okSig, 80, bridge],
      });
      expect(receipt.status).toBe("success");
      expect(await tokenBalance(c, bridge)).toBe(usdc(49.6));
      expect(await tokenBalance(c, ok.destAddr)).toBe(0n);
      expect(await tokenBalance(c, burner.address)).toBe(0n);
    },
    T,
  );

  it(
    "an intent signed for one chain does not verify on the other",
    async () => {
      const c = ctx("destination");
      const { burner, auth } = await newBurner(c, usdc(5));
      const intent = intentFor(c, { deadline: (await now(c)) + 3600n });
      const sourceId = ctx("source").chain.chainId;
      const sig = await burner.signTypedData(intentTypedData(sourceId, burner.address, intent));
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { functionName: "sweep", args: [intent, sig, 0, intent.destAddr], authorizationList: [auth] },
        "BadSignature",
      );
      expect(await tokenBalance(c, burner.address)).toBe(usdc(5));
    },
    T,
  );
});

describe("refund", () => {
  it(
    "anyone can submit a burner-signed Refund; it pays the signed recipient once",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(50));
      const to = randomAddress();
      const refund = {
        token: c.chain.usdc,
        to,
        amount: usdc(30),
        deadline: (await now(c)) + 3600n,
        salt: generatePrivateKey(),
      };
      const sig = await burner.signTypedData(refundTypedData(c.chain.chainId, burner.address, refund));

      // A submitter cannot redirect it: changing `to` breaks the signature.
      await expectRevert(
        c,
        c.funded,
        burner.address,
        {
          functionName: "refund",
          args: [{ ...refund, to: randomAddress() }, sig],
          authorizationList: [auth],
        },
        "BadSignature",
      );
      // Submitted by the funded account, not the keeper.
      const receipt = await callBurner(c, c.funded, burner.address, {
        functionName: "refund",
        args: [refund, sig],
      });
      expect(receipt.status).toBe("success");
      expect(await tokenBalance(c, to)).toBe(usdc(30));
      expect(await tokenBalance(c, burner.address)).toBe(usdc(20));

      await expectRevert(
        c,
        c.funded,
        burner.address,
        { functionName: "refund", args: [refund, sig] },
        "SaltUsed",
      );
      expect(await tokenBalance(c, to)).toBe(usdc(30));
    },
    T,
  );

  it(
    "a StandingRefund signature is not accepted as a Refund (distinct type hashes)",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(5));
      const refund = {
        token: c.chain.usdc,
        to: randomAddress(),
        amount: usdc(5),
        deadline: (await now(c)) + 3600n,
        salt: generatePrivateKey(),
      };
      const standing = await burner.signTypedData(
        standingRefundTypedData(c.chain.chainId, burner.address, {
          to: refund.to,
          deadline: refund.deadline,
        }),
      );
      await expectRevert(
        c,
        c.funded,
        burner.address,
        { functionName: "refund", args: [refund, standing], authorizationList: [auth] },
        "BadSignature",
      );
      expect(await tokenBalance(c, burner.address)).toBe(usdc(5));
    },
    T,
  );

  it(
    "standing refund: keeper-only before the deadline, moves the whole balance; anyone after the deadline",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(40));
      const to = randomAddress();
      const deadline = (await now(c)) + 3600n;
      const sig = await burner.signTypedData(
        standingRefundTypedData(c.chain.chainId, burner.address, { to, deadline }),
      );
      const call = {
        functionName: "executeStandingRefund",
        args: [to, deadline, sig, c.chain.usdc],
      } as const;

      await expectRevert(c, c.funded, burner.address, { ...call, authorizationList: [auth] }, "NotKeeper");
      expect(await tokenBalance(c, burner.address)).toBe(usdc(40));

      // More arrives after signing: the refund is amount-free and takes whatever is there.
      const topUp = await c.funded.writeContract({
        address: c.chain.usdc,
        abi: testUsdcAbi,
        functionName: "transfer",
        args: [burner.address, usdc(2.5)],
      });
      expect((await mined(c, topUp)).status).toBe("success");
      expect((await callBurner(c, c.relayer, burner.address, call)).status).toBe("success");
      expect(await tokenBalance(c, to)).toBe(usdc(42.5));
      expect(await tokenBalance(c, burner.address)).toBe(0n);

      // A second burner whose standing refund deadline has passed: the funded account (not keeper) may run it.
      const late = await newBurner(c, usdc(7));
      const lateTo = randomAddress();
      const past = (await now(c)) - 1n;
      const lateSig = await late.burner.signTypedData(
        standingRefundTypedData(c.chain.chainId, late.burner.address, { to: lateTo, deadline: past }),
      );
      const lateReceipt = await callBurner(c, c.funded, late.burner.address, {
        functionName: "executeStandingRefund",
        args: [lateTo, past, lateSig, c.chain.usdc],
        authorizationList: [late.auth],
      });
      expect(lateReceipt.status).toBe("success");
      expect(await tokenBalance(c, lateTo)).toBe(usdc(7));
      expect(await tokenBalance(c, late.burner.address)).toBe(0n);
    },
    T,
  );

  it(
    "native ETH: delegated burner accepts ETH, signed refund and standing refund move it",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, 0n);
      // Delegate with an empty call: this runs receive(), which a delegated EOA needs to accept ETH.
      const delegated = await c.relayer.sendTransaction({ to: burner.address, authorizationList: [auth] });
      expect((await mined(c, delegated)).status).toBe("success");
      const deposit = await c.funded.sendTransaction({ to: burner.address, value: parseEther("1") });
      expect((await mined(c, deposit)).status).toBe("success");
      expect(await tokenBalance(c, burner.address, ZERO)).toBe(parseEther("1"));

      const to = randomAddress();
      const refund = {
        token: ZERO,
        to,
        amount: parseEther("0.4"),
        deadline: (await now(c)) + 3600n,
        salt: generatePrivateKey(),
      };
      const sig = await burner.signTypedData(refundTypedData(c.chain.chainId, burner.address, refund));
      expect(
        (await callBurner(c, c.funded, burner.address, { functionName: "refund", args: [refund, sig] }))
          .status,
      ).toBe("success");
      expect(await tokenBalance(c, to, ZERO)).toBe(parseEther("0.4"));
      expect(await tokenBalance(c, burner.address, ZERO)).toBe(parseEther("0.6"));

      const rest = randomAddress();
      const deadline = (await now(c)) + 3600n;
      const standing = await burner.signTypedData(
        standingRefundTypedData(c.chain.chainId, burner.address, { to: rest, deadline }),
      );
      const receipt = await callBurner(c, c.relayer, burner.address, {
        functionName: "executeStandingRefund",
        args: [rest, deadline, standing, ZERO],
      });
      expect(receipt.status).toBe("success");
      expect(await tokenBalance(c, rest, ZERO)).toBe(parseEther("0.6"));
      expect(await tokenBalance(c, burner.address, ZERO)).toBe(0n);
    },
    T,
  );
});

describe("eip712 helpers", () => {
  it(
    "domainFor matches the domain and separator the delegate reports from inside the burner",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, 0n);
      const delegated = await c.relayer.sendTransaction({ to: burner.address, authorizationList: [auth] });
      expect((await mined(c, delegated)).status).toBe("success");
      const domain = domainFor(c.chain.chainId, burner.address);

      // ERC-5267 view, served by the burner's delegated code
      const reported = await c.client.getEip712Domain({ address: burner.address });
      expect(reported.domain).toMatchObject(domain);
      const separator = await c.client.readContract({
        address: burner.address,
        abi: burnerDelegateAbi,
        functionName: "domainSeparator",
      });
      expect(separator).toBe(
        hashDomain({
          domain: { ...domain, chainId: BigInt(domain.chainId) },
          types: { EIP712Domain: EIP712_DOMAIN_FIELDS },
        }),
      );
    },
    T,
  );
});

const EIP712_DOMAIN_FIELDS = [
  { name: "name", type: "string" },
  { name: "version", type: "string" },
  { name: "chainId", type: "uint256" },
  { name: "verifyingContract", type: "address" },
] as const;
