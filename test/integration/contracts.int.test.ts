// BurnerDelegate on real anvil chains: its build and configuration, signed refund and standing refund, and
// the EIP-712 domain it reports from inside a burner, each checked through balances. The sweep (swap, fees,
// same-chain and bridged delivery) is in delegate-sweep.int.test.ts. Chains are started (or reused) by
// ensureChains and left running afterwards.
import { decodeErrorResult, encodeDeployData, type Hex, hashDomain, parseEther } from "viem";
import { generatePrivateKey, privateKeyToAddress } from "viem/accounts";
import { beforeAll, describe, expect, it } from "vitest";
import { CCTP_DOMAINS, DEV_ACCOUNTS } from "../../deploy/local/chains.ts";
import * as abis from "../../src/chains/evm/abi.ts";
import { burnerDelegateAbi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { abiExportName, CONTRACT_NAMES, loadArtifacts } from "../../src/chains/evm/contracts.ts";
import {
  domainFor,
  refundTypedData,
  standingRefundTypedData,
} from "../../src/chains/evm/typed-data/eip712.ts";
import {
  type Ctx,
  callBurner,
  delegateNow,
  expectRevert,
  mined,
  newBurner,
  now,
  ROOT,
  setUpChains,
  tokenBalance,
  usdc,
  ZERO,
} from "../support/delegate.ts";

const T = 60_000;
const randomAddress = () => privateKeyToAddress(generatePrivateKey());

let ctx: (name: "source" | "destination") => Ctx;
beforeAll(async () => {
  ctx = await setUpChains();
}, 180_000);

// ---------------------------------------------------------------- tests

describe("build", () => {
  it("abi.ts matches the compiler output for every contract", async () => {
    const { contracts } = await loadArtifacts({ cacheDir: `${ROOT}/cache/contracts` });
    for (const name of CONTRACT_NAMES) {
      expect((abis as Record<string, unknown>)[abiExportName(name)], name).toEqual(contracts[name].abi);
    }
  });

  it("the constructor refuses zero addresses and a bad route table", async () => {
    const c = ctx("source");
    const { contracts } = await loadArtifacts({ cacheDir: `${ROOT}/cache/contracts` });
    const a = randomAddress();
    const deployError = async (args: readonly unknown[]) => {
      const data = encodeDeployData({
        abi: burnerDelegateAbi,
        bytecode: contracts.BurnerDelegate.bytecode,
        args,
      } as never);
      // A raw eth_call: its RpcRequestError carries the revert data (viem's call() wraps it away).
      const err = await c.client.request({ method: "eth_call", params: [{ data }, "latest"] } as never).then(
        () => undefined,
        (e: unknown) => e as { data?: Hex },
      );
      if (err === undefined) return "deployed";
      return decodeErrorResult({ abi: burnerDelegateAbi, data: err.data ?? "0x" }).errorName;
    };
    const valid = [a, a, a, a, a, a, [31338n], [101]] as const;
    expect(await deployError(valid)).toBe("deployed");
    expect(await deployError([a, a, a, a, a, ZERO, [31338n], [101]])).toBe("ZeroAddress");
    expect(await deployError([a, a, a, a, a, a, [31338n, 31338n], [101, 102]])).toBe("BadRoutes");
    expect(await deployError([a, a, a, a, a, a, [0n], [101]])).toBe("BadRoutes");
    expect(await deployError([a, a, a, a, a, a, [31338n], []])).toBe("BadRoutes");
    const nine = Array.from({ length: 9 }, (_, i) => BigInt(i + 1));
    expect(await deployError([a, a, a, a, a, a, nine, nine.map(Number)])).toBe("BadRoutes");
  });

  it.each(["source", "destination"] as const)(
    "%s: delegate is configured with keeper = relayer, platform fee recipient = account #2, this chain's DEX and bridge",
    async (name) => {
      const c = ctx(name);
      const read = <
        F extends
          | "KEEPER"
          | "PLATFORM_FEE_RECIPIENT"
          | "MAX_FEE_BPS"
          | "USDC"
          | "WETH"
          | "ROUTER"
          | "TOKEN_MESSENGER",
      >(
        functionName: F,
      ) => c.client.readContract({ address: c.chain.delegate, abi: burnerDelegateAbi, functionName });
      expect(await read("KEEPER")).toBe(c.chain.relayer.address);
      expect(await read("PLATFORM_FEE_RECIPIENT")).toBe(DEV_ACCOUNTS.platformFeeRecipient.address);
      expect(await read("MAX_FEE_BPS")).toBe(100);
      expect(await read("USDC")).toBe(c.chain.usdc);
      expect(await read("WETH")).toBe(c.chain.dex?.weth);
      expect(await read("ROUTER")).toBe(c.chain.dex?.router);
      expect(await read("TOKEN_MESSENGER")).toBe(c.chain.cctp?.tokenMessenger);
      const other = name === "source" ? ctx("destination").chain : ctx("source").chain;
      const domain = await c.client.readContract({
        address: c.chain.delegate,
        abi: burnerDelegateAbi,
        functionName: "destinationDomain",
        args: [BigInt(other.chainId)],
      });
      expect(domain).toBe(CCTP_DOMAINS[other.name]);
      expect(await c.client.getChainId()).toBe(c.chain.chainId);
      expect(await tokenBalance(c, c.chain.funded.address)).toBeGreaterThan(usdc(1_000));
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
    "a refund to the burner itself, or of nothing, reverts: neither Refund nor StandingRefund pays gas to move nothing",
    async () => {
      const c = ctx("source");
      const { burner, auth } = await newBurner(c, usdc(3));
      const deadline = (await now(c)) + 3600n;
      const signRefund = (over: { to: `0x${string}`; amount: bigint }) => {
        const refund = { token: c.chain.usdc, deadline, salt: generatePrivateKey(), ...over };
        return burner
          .signTypedData(refundTypedData(c.chain.chainId, burner.address, refund))
          .then((sig) => ({ refund, sig }));
      };
      const self = await signRefund({ to: burner.address, amount: usdc(1) });
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { functionName: "refund", args: [self.refund, self.sig], authorizationList: [auth] },
        "RecipientIsBurner",
      );
      const zero = await signRefund({ to: randomAddress(), amount: 0n });
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        { functionName: "refund", args: [zero.refund, zero.sig] },
        "NothingToMove",
      );
      const standing = await burner.signTypedData(
        standingRefundTypedData(c.chain.chainId, burner.address, { to: burner.address, deadline }),
      );
      await expectRevert(
        c,
        c.relayer,
        burner.address,
        {
          functionName: "executeStandingRefund",
          args: [burner.address, deadline, standing, c.chain.usdc],
        },
        "RecipientIsBurner",
      );
      // The salts stay unused and the balance where it was: the refused refunds changed nothing.
      expect(await tokenBalance(c, burner.address)).toBe(usdc(3));
      const saltUsed = (salt: `0x${string}`) =>
        c.client.readContract({
          address: burner.address,
          abi: burnerDelegateAbi,
          functionName: "refundSaltUsed",
          args: [salt],
        });
      expect(await saltUsed(self.refund.salt)).toBe(false);
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
      await delegateNow(c, burner.address, auth);
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
      await delegateNow(c, burner.address, auth);
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
