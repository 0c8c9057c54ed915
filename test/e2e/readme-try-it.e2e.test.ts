import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { type Address, createPublicClient, http } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { testUsdcAbi } from "../../src/chains/evm/abi.ts";
import { startTestService, type TestService } from "../support/service.ts";
import { tryItCommands } from "../support/try-it.ts";

// Every command of the README's "Try it", run as written (`sh -c` on the line) against the real service
// on the local stack, in merchant mode as `npm start` runs it; only GATEWAY_URL points at this test's
// gateway. Each must exit 0 and end its session `swept` with outcome `succeeded`.

const T = 240_000;
const commands = tryItCommands(readFileSync(new URL("../../README.md", import.meta.url), "utf8"));

let service: TestService;
let dest: LocalChain;

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "indexer", "gateway", "executor"],
    env: {
      MERCHANT_MODE: "development",
      SSE_KEEPALIVE_MS: "500",
      INDEXER_POLL_MS: "250",
      RATE_LIMIT_BURST: "1000",
    },
  });
  dest = service.stack.chains[1] as LocalChain;
}, T);
afterAll(async () => {
  await service?.stop();
}, T);

const run = (line: string) =>
  promisify(execFile)("sh", ["-c", line], {
    env: { ...process.env, GATEWAY_URL: service.url },
    timeout: T - 20_000,
  });

const usdcOn = (chain: LocalChain) => {
  const client = createPublicClient({ transport: http(chain.rpcUrl) });
  return (owner: Address) =>
    client.readContract({ address: chain.usdc, abi: testUsdcAbi, functionName: "balanceOf", args: [owner] });
};

describe("the README's Try it", () => {
  it("lists a command for each flow: EVM, Solana, Solana to EVM, stealth, merchant checkout", () => {
    const all = commands.join("\n");
    for (const flow of ["DEMO_CHAIN=solana", "DEMO_DEST=evm", "DEMO_FLOW=stealth", "DEMO_FLOW=checkout"])
      expect(all).toContain(flow);
    expect(commands).toContain("npm run demo");
  });

  it.each(commands)(
    "%s",
    async (line) => {
      const usdcOfDest = usdcOn(dest);
      const inventoryBefore = await usdcOfDest(dest.relayer.address);
      const { stdout } = await run(line);
      expect(stdout).toMatch(/SSE status=detected amount=\d+ /);
      expect(stdout).toMatch(/settled outcome=succeeded /);
      if (line.includes("DEMO_DEST=evm")) {
        // The fast fill: the recipient on the EVM chain holds what the demo says, paid from the relayer's USDC.
        const feeBps = BigInt(/committed fee_bps=(\d+)/.exec(stdout)?.[1] ?? "");
        const delivered = 25_000_000n - (25_000_000n * feeBps) / 10_000n;
        const held = new RegExp(
          `recipient (0x[0-9a-fA-F]{40}) holds (\\d+) USDC base units on chain ${dest.chainId}`,
        );
        const [, recipient, printed] = held.exec(stdout) ?? [];
        expect(printed).toBe(delivered.toString());
        expect(await usdcOfDest(recipient as Address)).toBe(delivered);
        expect(inventoryBefore - (await usdcOfDest(dest.relayer.address))).toBe(delivered);
      }
      if (line.includes("DEMO_FLOW=stealth")) {
        // Read again on the chain, not taken from the demo's word: the wallet holds what was withdrawn.
        const [, amount] = /withdrawn (\d+) \(fee \d+\)/.exec(stdout) ?? [];
        const [, wallet, printed, chainId] =
          /wallet (0x[0-9a-fA-F]{40}) holds (\d+) USDC base units on chain (\d+)/.exec(stdout) ?? [];
        expect(printed).toBe(amount);
        const source = service.stack.chains.find((c) => c.chainId === Number(chainId)) as LocalChain;
        expect(await usdcOn(source)(wallet as Address)).toBe(BigInt(amount ?? -1));
      }
    },
    T,
  );
});
