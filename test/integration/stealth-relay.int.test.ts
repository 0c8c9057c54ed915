// TestUSDC's EIP-3009 and StealthRelay on a private anvil (automine; the shared chains are not touched): the
// domain is real USDC's, an authorization works once and only for its payee, and a withdrawal pays exactly the
// signed destination and fee, refusing any other destination or fee with nothing moved. The last case checks
// the local stack deployed the relay against its USDC.
import {
  type Address,
  createPublicClient,
  createWalletClient,
  domainSeparator,
  type Hex,
  http,
  parseEther,
  parseEventLogs,
  parseSignature,
  type WalletClient,
} from "viem";
import { generatePrivateKey, privateKeyToAccount, privateKeyToAddress } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureChains } from "../../deploy/local/chains.ts";
import { stealthRelayAbi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { loadArtifacts } from "../../src/chains/evm/contracts.ts";
import {
  type ReceiveAuthorizationMessage,
  receiveAuthorizationTypedData,
  usdcDomain,
  type WithdrawMessage,
  withdrawTypedData,
} from "../../src/chains/evm/typed-data/stealth-withdraw.ts";
import { startTestChain, type TestChain } from "../support/anvil-chain.ts";
import { ROOT, revertName } from "../support/delegate.ts";

const T = 60_000;
const AMOUNT = 25_000_000n; // 25 USDC
const FEE = 300_000n; // 0.30 USDC
const randomAddress = () => privateKeyToAddress(generatePrivateKey());

let chain: TestChain;
let relay: Address;
let relayer: WalletClient;

beforeAll(async () => {
  chain = await startTestChain({ chainId: 31_991 });
  const key = generatePrivateKey();
  await chain.rpc("anvil_setBalance", [privateKeyToAddress(key), `0x${parseEther("10").toString(16)}`]);
  relayer = createWalletClient({
    account: privateKeyToAccount(key),
    chain: chain.client.chain,
    transport: http(chain.url),
  });
  const { StealthRelay } = (await loadArtifacts()).contracts;
  const hash = await relayer.deployContract({
    ...StealthRelay,
    args: [chain.usdc],
    account: relayer.account ?? null,
    chain: chain.client.chain,
  });
  const receipt = await chain.client.waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error("no StealthRelay address");
  relay = receipt.contractAddress;
}, T);
afterAll(async () => chain?.stop());

const balance = (owner: Address) =>
  chain.client.readContract({
    address: chain.usdc,
    abi: testUsdcAbi,
    functionName: "balanceOf",
    args: [owner],
  });

/** A stealth address as the recipient finds it: a fresh key holding USDC and no ETH. */
async function fundedStealth(amount = AMOUNT) {
  const account = privateKeyToAccount(generatePrivateKey());
  await chain.sendUsdc(account.address, amount);
  return account;
}
type Stealth = Awaited<ReturnType<typeof fundedStealth>>;

async function signPair(stealth: Stealth, w: Omit<WithdrawMessage, "authNonce">, value = AMOUNT) {
  const now = (await chain.client.getBlock()).timestamp;
  const auth: ReceiveAuthorizationMessage = {
    from: stealth.address,
    to: relay,
    value,
    validAfter: 0n,
    validBefore: now + 3600n,
    nonce: generatePrivateKey(),
  };
  const authSig = await stealth.signTypedData(receiveAuthorizationTypedData(chain.chainId, chain.usdc, auth));
  const withdrawSig = await stealth.signTypedData(
    withdrawTypedData(chain.chainId, relay, { ...w, authNonce: auth.nonce }),
  );
  return { auth, authSig, withdrawSig };
}

type Pair = Awaited<ReturnType<typeof signPair>>;
function withdrawArgs(p: Pair, w: Omit<WithdrawMessage, "authNonce">, withdrawSig: Hex = p.withdrawSig) {
  const { v, r, s } = parseSignature(p.authSig);
  return [
    { ...p.auth, v: Number(v), r, s },
    { destination: w.destination, fee: w.fee, deadline: w.deadline },
    withdrawSig,
  ] as const;
}

async function deadline(): Promise<bigint> {
  return (await chain.client.getBlock()).timestamp + 600n;
}

async function expectWithdrawRevert(args: ReturnType<typeof withdrawArgs>, error: string) {
  const simulated = chain.client.simulateContract({
    address: relay,
    // The token's errors too: a refused authorization reverts in the token, and the relay passes its error up.
    abi: [...stealthRelayAbi, ...testUsdcAbi.filter((item) => item.type === "error")],
    functionName: "withdraw",
    args,
    account: relayer.account ?? null,
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
    const holder = await fundedStealth();
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
    expect(
      await revertName(chain.client.simulateContract({ ...call, account: relayer.account ?? null })),
    ).toBe("CallerMustBePayee");
    // The same signature cannot be spent as a transferWithAuthorization (another type hash).
    expect(
      await revertName(
        chain.client.simulateContract({
          ...call,
          functionName: "transferWithAuthorization",
          account: relayer.account ?? null,
        }),
      ),
    ).toBe("InvalidSignature");

    const hash = await payeeWallet.writeContract({ ...call, account: payee, chain: chain.client.chain });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await balance(payee.address)).toBe(AMOUNT);
    expect(await balance(holder.address)).toBe(0n);
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
    const holder = await fundedStealth();
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
        account: relayer.account ?? null,
      });
      expect(await revertName(transfer)).toBe(error);
    }
  });
});

describe("StealthRelay", () => {
  it("pays the signed destination the balance minus the fee and the submitter the fee; the stealth address ends at 0", async () => {
    const stealth = await fundedStealth();
    const w = { destination: randomAddress(), fee: FEE, deadline: await deadline() };
    const pair = await signPair(stealth, w);
    const relayerBefore = await balance(relayer.account?.address as Address);
    const hash = await relayer.writeContract({
      address: relay,
      abi: stealthRelayAbi,
      functionName: "withdraw",
      args: withdrawArgs(pair, w),
      account: relayer.account ?? null,
      chain: chain.client.chain,
    });
    const receipt = await chain.client.waitForTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect(await balance(stealth.address)).toBe(0n);
    expect(await balance(w.destination)).toBe(AMOUNT - FEE);
    expect((await balance(relayer.account?.address as Address)) - relayerBefore).toBe(FEE);
    expect(await balance(relay)).toBe(0n);
    const [event] = parseEventLogs({ abi: stealthRelayAbi, eventName: "Withdrawn", logs: receipt.logs });
    expect(event?.args).toEqual({
      from: stealth.address,
      destination: w.destination,
      authNonce: pair.auth.nonce,
      amount: AMOUNT - FEE,
      fee: FEE,
      relayer: relayer.account?.address,
    });
    // The same pair again: the token refuses the used nonce.
    await expectWithdrawRevert(withdrawArgs(pair, w), "AuthorizationUsedOrCanceled");
  });

  it("refuses another destination, a higher fee, another authorization's nonce, a past deadline, and moves nothing", async () => {
    const stealth = await fundedStealth();
    const w = { destination: randomAddress(), fee: FEE, deadline: await deadline() };
    const pair = await signPair(stealth, w);
    await expectWithdrawRevert(withdrawArgs(pair, { ...w, destination: randomAddress() }), "BadSignature");
    await expectWithdrawRevert(withdrawArgs(pair, { ...w, fee: FEE + 1n }), "BadSignature");
    // A Withdraw signed for another authorization nonce does not pair with this authorization.
    const other = await signPair(stealth, w);
    await expectWithdrawRevert(withdrawArgs(pair, w, other.withdrawSig), "BadSignature");
    // Signed by someone other than the stealth key.
    const stranger = privateKeyToAccount(generatePrivateKey());
    const strangerSig = await stranger.signTypedData(
      withdrawTypedData(chain.chainId, relay, { ...w, authNonce: pair.auth.nonce }),
    );
    await expectWithdrawRevert(withdrawArgs(pair, w, strangerSig), "BadSignature");
    const late = { ...w, deadline: (await chain.client.getBlock()).timestamp - 1n };
    const latePair = await signPair(stealth, late);
    await expectWithdrawRevert(withdrawArgs(latePair, late), "Expired");
    const greedy = { ...w, fee: AMOUNT };
    const greedyPair = await signPair(stealth, greedy);
    await expectWithdrawRevert(withdrawArgs(greedyPair, greedy), "FeeTooHigh");
    expect(await balance(stealth.address)).toBe(AMOUNT);
    expect(await balance(w.destination)).toBe(0n);
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
