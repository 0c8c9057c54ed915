// TestUSDC's EIP-3009 and StealthRelay on a private anvil (automine; the shared chains are not touched): the
// domain is real USDC's, an authorization works once and only for its payee, and a withdrawal pays exactly the
// signed destination, fee and relayer, refusing any other destination, fee, relayer or sender with nothing
// moved. The last case checks the local stack deployed the relay against its USDC.
// test/e2e/stranger.e2e.test.ts has the withdrawal a stranger copies from the mempool.
import {
  type Address,
  createPublicClient,
  createWalletClient,
  domainSeparator,
  http,
  parseEther,
  parseEventLogs,
  parseSignature,
} from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChains } from "../../deploy/local/chains.ts";
import { stealthRelayAbi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import {
  type ReceiveAuthorizationMessage,
  receiveAuthorizationTypedData,
  usdcDomain,
  withdrawTypedData,
} from "../../src/chains/evm/typed-data/stealth-withdraw.ts";
import type { TestChain } from "../support/anvil-chain.ts";
import { ROOT, revertName } from "../support/delegate.ts";
import {
  STEALTH_AMOUNT as AMOUNT,
  fundedWallet,
  randomAddress,
  startRelayChain,
  withdrawArgs,
} from "../support/stealth-relay.ts";

const T = 60_000;
const FEE = 300_000n; // 0.30 USDC

let ctx: Awaited<ReturnType<typeof startRelayChain>>;
let chain: TestChain;
beforeAll(async () => {
  ctx = await startRelayChain(31_991);
  chain = ctx.chain;
}, T);
afterAll(async () => ctx?.chain.stop());

async function expectWithdrawRevert(
  args: ReturnType<typeof withdrawArgs>,
  error: string,
  account: { address: Address } = ctx.relayer.account,
) {
  const simulated = chain.client.simulateContract({
    address: ctx.relay,
    // The token's errors too: a refused authorization reverts in the token, and the relay passes its error up.
    abi: [...stealthRelayAbi, ...testUsdcAbi.filter((item) => item.type === "error")],
    functionName: "withdraw",
    args,
    account: account.address,
  });
  expect(await revertName(simulated, `expected withdraw to revert with ${error}`)).toBe(error);
}

describe("TestUSDC EIP-3009", () => {
  it("has real USDC's EIP-712 domain (name USD Coin, version 2)", async () => {
    const separator = await chain.client.readContract({
      address: chain.usdc,
      abi: testUsdcAbi,
      functionName: "DOMAIN_SEPARATOR",
    });
    expect(separator).toBe(domainSeparator({ domain: usdcDomain(chain.chainId, chain.usdc) }));
    expect(
      await chain.client.readContract({ address: chain.usdc, abi: testUsdcAbi, functionName: "name" }),
    ).toBe("USD Coin");
  });

  it("receiveWithAuthorization works once, and only when the payee submits it", async () => {
    const holder = await ctx.fundedStealth();
    const payee = privateKeyToAccount(generatePrivateKey());
    await chain.rpc("anvil_setBalance", [payee.address, `0x${parseEther("1").toString(16)}`]);
    const payeeWallet = createWalletClient({
      account: payee,
      chain: chain.client.chain,
      transport: http(chain.url),
    });
    const now = (await chain.client.getBlock()).timestamp;
    const auth: ReceiveAuthorizationMessage = {
      from: holder.address,
      to: payee.address,
      value: AMOUNT,
      validAfter: 0n,
      validBefore: now + 3600n,
      nonce: generatePrivateKey(),
    };
    const { v, r, s } = parseSignature(
      await holder.signTypedData(receiveAuthorizationTypedData(chain.chainId, chain.usdc, auth)),
    );
    const args = [
      auth.from,
      auth.to,
      auth.value,
      auth.validAfter,
      auth.validBefore,
      auth.nonce,
      Number(v),
      r,
      s,
    ] as const;
    const call = {
      address: chain.usdc,
      abi: testUsdcAbi,
      functionName: "receiveWithAuthorization",
      args,
    } as const;

    // Someone else submitting it (a copy from the mempool) is refused.
    expect(await revertName(chain.client.simulateContract({ ...call, account: ctx.relayer.account }))).toBe(
      "CallerMustBePayee",
    );
    // The same signature cannot be spent as a transferWithAuthorization (another type hash).
    expect(
      await revertName(
        chain.client.simulateContract({
          ...call,
          functionName: "transferWithAuthorization",
          account: ctx.relayer.account,
        }),
      ),
    ).toBe("InvalidSignature");

    const hash = await payeeWallet.writeContract({ ...call, account: payee, chain: chain.client.chain });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await ctx.balance(payee.address)).toBe(AMOUNT);
    expect(await ctx.balance(holder.address)).toBe(0n);
    const used = parseEventLogs({ abi: testUsdcAbi, eventName: "AuthorizationUsed", logs: receipt.logs });
    expect(used.map((l) => [l.args.authorizer, l.args.nonce])).toEqual([[holder.address, auth.nonce]]);
    expect(
      await chain.client.readContract({
        address: chain.usdc,
        abi: testUsdcAbi,
        functionName: "authorizationState",
        args: [holder.address, auth.nonce],
      }),
    ).toBe(true);
    expect(await revertName(chain.client.simulateContract({ ...call, account: payee }))).toBe(
      "AuthorizationUsedOrCanceled",
    );
  });

  it("refuses an authorization outside its validity window", async () => {
    const holder = await ctx.fundedStealth();
    const now = (await chain.client.getBlock()).timestamp;
    for (const [window, error] of [
      [{ validAfter: now + 600n, validBefore: now + 3600n }, "AuthorizationNotYetValid"],
      [{ validAfter: 0n, validBefore: now - 1n }, "AuthorizationExpired"],
    ] as const) {
      const auth = {
        from: holder.address,
        to: randomAddress(),
        value: 1n,
        ...window,
        nonce: generatePrivateKey(),
      };
      const { v, r, s } = parseSignature(
        await holder.signTypedData(receiveAuthorizationTypedData(chain.chainId, chain.usdc, auth)),
      );
      const transfer = chain.client.simulateContract({
        address: chain.usdc,
        abi: testUsdcAbi,
        functionName: "transferWithAuthorization",
        args: [
          auth.from,
          auth.to,
          auth.value,
          auth.validAfter,
          auth.validBefore,
          auth.nonce,
          Number(v),
          r,
          s,
        ],
        account: ctx.relayer.account,
      });
      expect(await revertName(transfer)).toBe(error);
    }
  });
});

describe("StealthRelay", () => {
  it("pays the signed destination the balance minus the fee and the signed relayer the fee; the stealth address ends at 0", async () => {
    const stealth = await ctx.fundedStealth();
    const w = {
      destination: randomAddress(),
      fee: FEE,
      relayer: ctx.relayer.account.address,
      deadline: await ctx.deadline(),
    };
    const pair = await ctx.signPair(stealth, w);
    const relayerBefore = await ctx.balance(ctx.relayer.account.address);
    const hash = await ctx.relayer.writeContract({
      address: ctx.relay,
      abi: stealthRelayAbi,
      functionName: "withdraw",
      args: withdrawArgs(pair, w),
      account: ctx.relayer.account,
      chain: chain.client.chain,
    });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await ctx.balance(stealth.address)).toBe(0n);
    expect(await ctx.balance(w.destination)).toBe(AMOUNT - FEE);
    expect((await ctx.balance(ctx.relayer.account.address)) - relayerBefore).toBe(FEE);
    expect(await ctx.balance(ctx.relay)).toBe(0n);
    const [event] = parseEventLogs({ abi: stealthRelayAbi, eventName: "Withdrawn", logs: receipt.logs });
    expect(event?.args).toEqual({
      from: stealth.address,
      destination: w.destination,
      authNonce: pair.auth.nonce,
      amount: AMOUNT - FEE,
      fee: FEE,
      relayer: ctx.relayer.account.address,
    });
    // The same pair again: the token refuses the used nonce.
    await expectWithdrawRevert(withdrawArgs(pair, w), "AuthorizationUsedOrCanceled");
  });

  it("refuses another destination, a higher fee, another relayer, another authorization's nonce, a past deadline, and moves nothing", async () => {
    const stealth = await ctx.fundedStealth();
    const w = {
      destination: randomAddress(),
      fee: FEE,
      relayer: ctx.relayer.account.address,
      deadline: await ctx.deadline(),
    };
    const pair = await ctx.signPair(stealth, w);
    await expectWithdrawRevert(withdrawArgs(pair, { ...w, destination: randomAddress() }), "BadSignature");
    await expectWithdrawRevert(withdrawArgs(pair, { ...w, fee: FEE + 1n }), "BadSignature");
    // Anyone else sending the pair as signed is refused first; rewriting it to name the sender breaks the
    // signature: neither way does a stranger take the fee or spend the authorization.
    const stranger = await fundedWallet(chain);
    await expectWithdrawRevert(withdrawArgs(pair, w), "NotRelayer", stranger.account);
    await expectWithdrawRevert(
      withdrawArgs(pair, { ...w, relayer: stranger.account.address }),
      "BadSignature",
      stranger.account,
    );
    // A Withdraw signed for another authorization nonce does not pair with this authorization.
    const other = await ctx.signPair(stealth, w);
    await expectWithdrawRevert(withdrawArgs(pair, w, other.withdrawSig), "BadSignature");
    // Signed by someone other than the stealth key.
    const otherKey = privateKeyToAccount(generatePrivateKey());
    const strangerSig = await otherKey.signTypedData(
      withdrawTypedData(chain.chainId, ctx.relay, { ...w, authNonce: pair.auth.nonce }),
    );
    await expectWithdrawRevert(withdrawArgs(pair, w, strangerSig), "BadSignature");
    const late = { ...w, deadline: (await chain.client.getBlock()).timestamp - 1n };
    const latePair = await ctx.signPair(stealth, late);
    await expectWithdrawRevert(withdrawArgs(latePair, late), "Expired");
    const greedy = { ...w, fee: AMOUNT };
    const greedyPair = await ctx.signPair(stealth, greedy);
    await expectWithdrawRevert(withdrawArgs(greedyPair, greedy), "FeeTooHigh");
    expect(await ctx.balance(stealth.address)).toBe(AMOUNT);
    expect(await ctx.balance(w.destination)).toBe(0n);
  });

  it(
    "is deployed on the local stack's chains against their USDC",
    async () => {
      const { chains } = await ensureChains({ root: ROOT });
      for (const c of chains) {
        expect(c.stealthRelay, c.name).toBeDefined();
        const client = createPublicClient({ transport: http(c.rpcUrl) });
        const token = await client.readContract({
          address: c.stealthRelay as Address,
          abi: stealthRelayAbi,
          functionName: "TOKEN",
        });
        expect(token.toLowerCase()).toBe(c.usdc.toLowerCase());
      }
    },
    T,
  );
});
