import { Keypair } from "@solana/web3.js";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import type { ChainExecutor, ExecutorWorkType } from "../../src/chains/adapter.ts";
import { createEvmExecutor } from "../../src/chains/evm/settle/executor.ts";
import { createSolanaExecutor } from "../../src/chains/solana/executor.ts";
import { handleCommand } from "../../src/executor/handle-command.ts";
import type { ExecutorCommand } from "../../src/records/executor-commands.ts";
import type { ExecutorLedger } from "../../src/store/executor-ledger.ts";

// A family's executor names the command kinds it carries out, and the executor role hands it no
// other: a command for the wrong family fails for good before anything is signed. The executors are
// the real ones (built without touching a node: nothing here is sent).

const NOWHERE = "http://127.0.0.1:9";
const evmKey = generatePrivateKey();
const evm = createEvmExecutor(
  {
    family: "evm",
    name: "local",
    chainId: 31337,
    rpcUrl: NOWHERE,
    delegate: "0x5fbdb2315678afecb367f032d93f642f64180aa3",
    confirmations: 1,
    minRelayerBalanceWei: "0",
    relayer: {
      address: privateKeyToAccount(evmKey).address.toLowerCase() as `0x${string}`,
      privateKey: evmKey,
    },
  } as Parameters<typeof createEvmExecutor>[0],
  {
    ledger: {} as ExecutorLedger,
    settings: {
      stuckAfterMs: 1000,
      feeBumpPercent: 10,
      bridgeFinality: 1000,
      bridgeMaxFeeBps: 0,
      attestationApiUrl: undefined,
      attestationTimeoutMs: 1000,
      attestationPollMs: 100,
    },
    attestationPacer: { take: async () => {} } as never,
    signal: new AbortController().signal,
  },
);
const solana = createSolanaExecutor({
  chainId: 792703810,
  rpcUrl: NOWHERE,
  relayer: Keypair.generate(),
  usdcMint: Keypair.generate().publicKey.toBase58(),
  signal: new AbortController().signal,
});

const kinds = (e: ChainExecutor) => [...e.carriesOut].sort();

describe("a chain family's executor", () => {
  it("names its own command kinds: the EVM steps and the Solana relays share only the announcement", () => {
    expect(kinds(evm)).toEqual(
      ["Announce", "CancelMandate", "ChargeSubscription", "FastFill", "Refund", "RefundAll", "Settle"].sort(),
    );
    expect(kinds(solana)).toEqual(
      ["Announce", "RelaySolanaRefund", "RelaySolanaSweep", "SolanaBounce", "SolanaBounceSetup"].sort(),
    );
  });

  /** Runs `type` on `chainId` through the executor role, the executors' `execute` only recorded. */
  async function route(chainId: number, type: ExecutorWorkType) {
    const executed: ExecutorWorkType[] = [];
    const watch = (e: ChainExecutor): ChainExecutor => ({
      ...e,
      execute: async (run) => {
        executed.push(run.command.command.type);
      },
    });
    const reports: unknown[] = [];
    const command = {
      commandId: "c1",
      issuedAt: 0,
      sessionId: "s1",
      chainId,
      command: { type, burner: "b", transaction: "t" } as unknown as ExecutorCommand["command"],
    } as ExecutorCommand;
    await handleCommand(command, {
      executors: new Map([
        [31337, watch(evm)],
        [792703810, watch(solana)],
      ]),
      report: async (_c, result) => {
        reports.push(result);
      },
      policy: { maxAttempts: 1, baseMs: 1, maxMs: 1, signal: new AbortController().signal },
      log: () => {},
    });
    return { executed, reports };
  }

  it.each([
    ["an EVM chain", 31337, "RelaySolanaSweep"],
    ["a Solana chain", 792703810, "Settle"],
  ] as const)("on %s, a %s command fails for good, unexecuted", async (_, chainId, type) => {
    const { executed, reports } = await route(chainId, type);
    expect(executed).toEqual([]);
    expect(reports).toEqual([
      {
        type: "ExecutionFailed",
        errorMessage: `chain ${chainId} does not carry out ${type}`,
        retryable: false,
        txHash: null,
      },
    ]);
  });

  it.each([
    [31337, "Settle"],
    [792703810, "RelaySolanaSweep"],
    [31337, "Announce"],
    [792703810, "Announce"],
  ] as const)("on chain %s, a %s command reaches its family's executor", async (chainId, type) => {
    expect(await route(chainId, type)).toEqual({ executed: [type], reports: [] });
  });
});
