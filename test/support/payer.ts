import { readFileSync } from "node:fs";
import { type Address, createPublicClient, createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { toViemChain } from "../../deploy/local/chains.ts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import type { Burner } from "../../src/client/burner.ts";

// The burner itself is the client library's (src/client/burner.ts); tests take it from here too.
export { newBurner } from "../../src/client/burner.ts";

export function sessionBody(burner: Burner, dest: Pick<LocalChain, "chainId">) {
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
