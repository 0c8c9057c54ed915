import { readFileSync } from "node:fs";
import { type Address, createPublicClient, createWalletClient, type Hex, http } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { toViemChain } from "../../deploy/local/chains.ts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";

/** What a payer's client does: make a burner, sign its 7702 authorization, and fund it on a local chain. */
export async function newBurner(chain: Pick<LocalChain, "chainId" | "delegate">) {
  const key = generatePrivateKey();
  const account = privateKeyToAccount(key);
  const auth = await account.signAuthorization({
    contractAddress: chain.delegate,
    chainId: chain.chainId,
    nonce: 0,
  });
  return {
    key,
    account,
    address: account.address,
    eip7702Auth: {
      address: auth.address,
      chainId: auth.chainId,
      nonce: auth.nonce,
      r: auth.r,
      s: auth.s,
      yParity: auth.yParity ?? 0,
    },
  };
}

export function sessionBody(
  burner: Awaited<ReturnType<typeof newBurner>>,
  dest: Pick<LocalChain, "chainId">,
) {
  return {
    burner_address: burner.address,
    eip7702_auth: burner.eip7702Auth,
    destination_address: "0x000000000000000000000000000000000000dEaD",
    destination_chain: dest.chainId,
  };
}

/** Sends USDC (6 decimals) or native wei from the stack's funded account; resolves with the mined receipt. */
export async function fund(chain: LocalChain, to: Address, amount: bigint, token: "usdc" | "native") {
  const wallet = createWalletClient({
    account: privateKeyToAccount(chain.funded.privateKey as Hex),
    chain: toViemChain(chain),
    transport: http(chain.rpcUrl),
  });
  const client = createPublicClient({
    chain: toViemChain(chain),
    transport: http(chain.rpcUrl),
    pollingInterval: 200,
  });
  // One sender, many tests: ask the chain for the pending nonce each time rather than trusting a cache.
  const nonce = await client.getTransactionCount({ address: wallet.account.address, blockTag: "pending" });
  const hash =
    token === "usdc"
      ? await wallet.writeContract({
          address: chain.usdc,
          abi: testUsdcAbi,
          functionName: "transfer",
          args: [to, amount],
          nonce,
        })
      : await wallet.sendTransaction({ to, value: amount, nonce });
  const receipt = await client.waitForTransactionReceipt({ hash });
  return { hash, receipt };
}

export const stackChains = (): LocalChain[] =>
  (JSON.parse(readFileSync(".local/stack.json", "utf8")) as { chains: LocalChain[] }).chains;
