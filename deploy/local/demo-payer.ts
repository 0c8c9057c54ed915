import { type Address, createPublicClient, createWalletClient, http, parseUnits } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { type LocalChain, toViemChain } from "./chains.ts";

/**
 * The demos' payer on a local EVM chain: the stack's funded test account, which pays a burner 25 USDC,
 * or 0.01 ETH with DEMO_TOKEN=native, and waits for the transfer to be mined.
 */
export function testPayer(source: LocalChain) {
  const chain = toViemChain(source);
  const payer = createWalletClient({
    account: privateKeyToAccount(source.funded.privateKey),
    chain,
    transport: http(source.rpcUrl),
  });
  const reader = createPublicClient({ chain, transport: http(source.rpcUrl), pollingInterval: 200 });
  const pay = async (to: Address) => {
    const hash =
      process.env.DEMO_TOKEN === "native"
        ? await payer.sendTransaction({ to, value: parseUnits("0.01", 18) })
        : await payer.writeContract({
            address: source.usdc,
            abi: testUsdcAbi,
            functionName: "transfer",
            args: [to, parseUnits("25", 6)],
          });
    await reader.waitForTransactionReceipt({ hash });
    console.log(`sent to burner ${to} on chain ${source.chainId}: ${hash}`);
  };
  return { payer, pay, reader };
}
