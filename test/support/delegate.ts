// Shared by the BurnerDelegate tests (and the DEX and bridge test) on the local anvil chains: one context per
// chain (clients, the relayer that is the delegate's keeper, the funded account, the deployer that owns
// TestDAI), fresh burners with their EIP-7702 authorization, calls into a burner, and proof of a revert
// (eth_call names the error, the mined transaction reverts).
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
  http,
  type PublicClient,
  type SignedAuthorization,
} from "viem";
import { generatePrivateKey, nonceManager, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { expect } from "vitest";
import { DEV_ACCOUNTS, ensureChains, type LocalChain, toViemChain } from "../../deploy/local/chains.ts";
import { startPrivateChains } from "../../deploy/local/private-chains.ts";
import { burnerDelegateAbi, testErc20Abi, testUsdcAbi } from "../../src/chains/evm/abi.ts";
import type { IntentMessage } from "../../src/chains/evm/typed-data/eip712.ts";

export const ROOT = fileURLToPath(new URL("../../.local", import.meta.url));
export const ZERO: Address = "0x0000000000000000000000000000000000000000";
export const ZERO32: Hex = `0x${"0".repeat(64)}`;
export const usdc = (n: number) => BigInt(Math.round(n * 1e6));

export type Ctx = ReturnType<typeof makeCtx>;
export type Wallet = Ctx["relayer"];

function makeCtx(chain: LocalChain) {
  const viemChain = toViemChain(chain);
  const transport = http(chain.rpcUrl);
  const client = createPublicClient({ chain: viemChain, transport, pollingInterval: 200 }) as PublicClient;
  // nonceManager: the tests fire several transactions from the same account back to back
  const wallet = (account: Account) =>
    createWalletClient({ chain: viemChain, transport, account, pollingInterval: 200 });
  const key = (k: Hex) => wallet(privateKeyToAccount(k, { nonceManager }));
  return {
    chain,
    client,
    relayer: key(chain.relayer.privateKey),
    funded: key(chain.funded.privateKey),
    /** Owns TestDAI, so it can mint deposits of the non-USDC token. */
    deployer: key(DEV_ACCOUNTS.deployer.privateKey),
  };
}

/** Starts (or reuses) the local chains and returns a context lookup by chain name. */
export async function setUpChains(): Promise<(name: LocalChain["name"]) => Ctx> {
  const started = Date.now();
  const { chains, started: spawned } = await ensureChains({ root: ROOT, log: (l) => console.log(l) });
  console.log(`ensureChains: ${Date.now() - started} ms (spawned anvil: ${spawned})`);
  return ctxLookup(chains);
}

/**
 * Both chains as the stack has them, but the caller's own (deploy/local/private-chains.ts): a file
 * on them shares no account with the files on the stack's chains, so it runs beside them.
 */
export async function setUpOwnChains(): Promise<{
  ctx: (name: LocalChain["name"]) => Ctx;
  chains: LocalChain[];
  stop(): Promise<void>;
}> {
  const started = Date.now();
  const own = await startPrivateChains({ names: ["source", "destination"] });
  console.log(`own chains: ${Date.now() - started} ms (${own.chains.map((c) => c.rpcUrl).join(", ")})`);
  return { ctx: ctxLookup(own.chains), chains: own.chains, stop: own.stop };
}

function ctxLookup(chains: LocalChain[]): (name: LocalChain["name"]) => Ctx {
  const ctxs = new Map(chains.map((c) => [c.name, makeCtx(c)]));
  return (name) => {
    const c = ctxs.get(name);
    if (!c) throw new Error(`chain ${name} not set up`);
    return c;
  };
}

export async function now(c: Ctx): Promise<bigint> {
  return (await c.client.getBlock()).timestamp;
}

/** Balance of an ERC-20, or of native ETH for the zero address. */
export async function tokenBalance(c: Ctx, owner: Address, token: Address = c.chain.usdc): Promise<bigint> {
  if (token === ZERO) return c.client.getBalance({ address: owner });
  return c.client.readContract({
    address: token,
    abi: testUsdcAbi,
    functionName: "balanceOf",
    args: [owner],
  });
}

export async function mined(c: Ctx, hash: Hex) {
  return c.client.waitForTransactionReceipt({ hash });
}

/** Waits for the transaction and asserts it did not revert. */
export async function succeeded(c: Ctx, hash: Hex) {
  const receipt = await mined(c, hash);
  expect(receipt.status).toBe("success");
  return receipt;
}

/** Gives `to` some USDC (from the funded account), TestDAI (minted by its owner) or native ETH. */
export async function fund(c: Ctx, to: Address, token: Address, amount: bigint): Promise<void> {
  const hash =
    token === ZERO
      ? await c.funded.sendTransaction({ to, value: amount })
      : token === c.chain.usdc
        ? await c.funded.writeContract({
            address: token,
            abi: testUsdcAbi,
            functionName: "transfer",
            args: [to, amount],
          })
        : await c.deployer.writeContract({
            address: token,
            abi: testErc20Abi,
            functionName: "mint",
            args: [to, amount],
          });
  await succeeded(c, hash);
}

/** A fresh burner key holding `amount` of USDC, plus its signed EIP-7702 authorization to our delegate. */
export async function newBurner(
  c: Ctx,
  amount: bigint,
): Promise<{ burner: PrivateKeyAccount; auth: SignedAuthorization }> {
  const burner = privateKeyToAccount(generatePrivateKey());
  if (amount > 0n) await fund(c, burner.address, c.chain.usdc, amount);
  const nonce = await c.client.getTransactionCount({ address: burner.address });
  const auth = await burner.signAuthorization({ address: c.chain.delegate, chainId: c.chain.chainId, nonce });
  return { burner, auth };
}

/** Delegates the burner with an empty type-4 call (runs receive()), which a burner needs to accept ETH. */
export async function delegateNow(c: Ctx, burner: Address, auth: SignedAuthorization): Promise<void> {
  const hash = await c.relayer.sendTransaction({ to: burner, authorizationList: [auth] });
  await succeeded(c, hash);
}

export function intentFor(
  c: Ctx,
  over: Partial<IntentMessage> & Pick<IntentMessage, "deadline">,
): IntentMessage {
  return {
    destChainId: BigInt(c.chain.chainId),
    destAddr: privateKeyToAccount(generatePrivateKey()).address,
    minOut: 0n,
    salt: generatePrivateKey(),
    inToken: c.chain.usdc,
    maxIn: usdc(1_000_000),
    appFeeBps: 0,
    appFeeRecipient: ZERO,
    ...over,
  };
}

export type DelegateCall = {
  functionName: "sweep" | "refund" | "executeStandingRefund";
  args: readonly unknown[];
  authorizationList?: SignedAuthorization[];
};

/** Sends a delegate call to the burner as `from` and returns the receipt. */
export async function callBurner(c: Ctx, from: Wallet, burner: Address, call: DelegateCall, gas?: bigint) {
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
 * Proves a revert twice: eth_call reports the expected custom error (or revert string), and the same call
 * sent as a real transaction (fixed gas, so nothing is estimated away) is mined with status "reverted".
 */
export async function expectRevert(c: Ctx, from: Wallet, burner: Address, call: DelegateCall, error: string) {
  const simulated = c.client.simulateContract({
    account: from.account,
    address: burner,
    abi: burnerDelegateAbi as Abi,
    functionName: call.functionName,
    args: call.args,
    ...(call.authorizationList ? { authorizationList: call.authorizationList } : {}),
  });
  const name = await revertName(simulated, `expected ${call.functionName} to revert with ${error}`);
  expect(name).toBe(error);
  expect((await callBurner(c, from, burner, call, 1_000_000n)).status).toBe("reverted");
}

/**
 * The custom error (or revert string) a simulated call (eth_call) reverted with; asserts that it failed with
 * viem's error rather than resolving.
 */
export async function revertName(
  call: Promise<unknown>,
  message = "expected a revert",
): Promise<string | undefined> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, message).toBeInstanceOf(BaseError);
  const reverted = (err as BaseError).walk((e) => e instanceof ContractFunctionRevertedError) as
    | ContractFunctionRevertedError
    | undefined;
  return reverted?.data?.errorName === "Error" ? reverted.reason : reverted?.data?.errorName;
}
