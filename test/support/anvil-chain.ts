// A private anvil node for tests and benchmarks that rewrite history (anvil_reorg, setCode) and so
// must not run against the shared local chains. TestUSDC is deployed from the project's artifacts.
import { type ChildProcess, spawn } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import {
  type Address,
  createPublicClient,
  createWalletClient,
  defineChain,
  type Hex,
  http,
  type PublicClient,
} from "viem";
import { anvilBin } from "../../deploy/local/chains.ts";
import { freePort } from "../../deploy/local/free-port.ts";
import { loadArtifacts } from "../../src/chains/evm/contracts.ts";

/** anvil's dev account #0: unlocked on the node, so transactions go out via eth_sendTransaction. */
export const PAYER: Address = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

export interface TestChain {
  url: string;
  chainId: number;
  client: PublicClient;
  /** lower-case address of a 6-decimals ERC-20 the payer holds plenty of */
  usdc: Address;
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  mine(blocks?: number): Promise<void>;
  setAutomine(on: boolean): Promise<void>;
  /** Sends and, unless `wait` is false (automine off), waits until the transaction is mined. */
  sendUsdc(to: Address, amount: bigint, wait?: boolean): Promise<Hex>;
  /** An explicit `gas` skips estimation, so a transaction that reverts is still mined. */
  sendEth(to: Address, amount: bigint, opts?: { gas?: bigint; wait?: boolean }): Promise<Hex>;
  /** Replaces the newest `depth` blocks with empty ones; their transactions are gone. */
  reorg(depth: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestChain(opts: { chainId?: number } = {}): Promise<TestChain> {
  const chainId = opts.chainId ?? 31_999;
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    anvilBin(),
    ["--port", String(port), "--chain-id", String(chainId), "--hardfork", "prague", "--silent"],
    { stdio: "ignore" },
  );
  // never leave the node behind, even when the caller crashes before stop()
  const killOnExit = (): void => void child.kill("SIGKILL");
  process.once("exit", killOnExit);
  const stop = async (): Promise<void> => {
    process.off("exit", killOnExit);
    if (child.exitCode !== null || child.killed) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  };
  const chain = defineChain({
    id: chainId,
    name: "test-anvil",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
  const client = createPublicClient({ chain, transport: http(url) }) as PublicClient;
  const wallet = createWalletClient({ chain, transport: http(url), account: PAYER });
  const rpc = (method: string, params: unknown[] = []) =>
    client.request({ method, params } as never) as Promise<unknown>;

  try {
    for (let i = 0; ; i++) {
      try {
        await client.getChainId();
        break;
      } catch (err) {
        if (i >= 100 || child.exitCode !== null)
          throw new Error(`anvil did not start on ${url}`, { cause: err });
        await sleep(100);
      }
    }
    // anvil answers eth_sendTransaction before it mines the block
    const mined = async (hash: Hex): Promise<Hex> => {
      await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      return hash;
    };
    const { TestUSDC } = (await loadArtifacts()).contracts;
    const deployTx = await wallet.deployContract({
      abi: TestUSDC.abi,
      bytecode: TestUSDC.bytecode,
      args: [PAYER],
    });
    const receipt = await client.waitForTransactionReceipt({ hash: await mined(deployTx) });
    if (!receipt.contractAddress) throw new Error("TestUSDC deployment has no address");
    const usdc = receipt.contractAddress.toLowerCase() as Address;
    await mined(
      await wallet.writeContract({
        address: usdc,
        abi: TestUSDC.abi,
        functionName: "mint",
        args: [PAYER, 10n ** 18n],
      }),
    );

    return {
      url,
      chainId,
      client,
      usdc,
      rpc,
      mine: async (blocks = 1) => {
        await rpc("anvil_mine", [`0x${blocks.toString(16)}`]);
      },
      setAutomine: async (on) => {
        await rpc("evm_setAutomine", [on]);
      },
      sendUsdc: async (to, amount, wait = true) => {
        const hash = await wallet.writeContract({
          address: usdc,
          abi: TestUSDC.abi,
          functionName: "transfer",
          args: [to, amount],
          gas: 100_000n,
        });
        return wait ? mined(hash) : hash;
      },
      sendEth: async (to, value, { gas, wait = true } = {}) => {
        const hash = await wallet.sendTransaction(gas ? { to, value, gas } : { to, value });
        return wait ? mined(hash) : hash;
      },
      reorg: async (depth) => {
        await rpc("anvil_reorg", [depth, []]);
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
