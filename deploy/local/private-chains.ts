// Anvil chains of a caller's own, for a test whose chain use must share nothing with the stack's
// chains: the stack's relayer and funded accounts send from one nonce sequence per chain, so the
// files that use them run one at a time. A private chain is the same anvil and the same deployment as
// the stack's (chains.ts), on free ports, with no state file; it lives as long as its caller.
import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { localEvmChain } from "../../src/chains/config.ts";
import { loadArtifacts } from "../../src/chains/evm/contracts.ts";
import { parseConfig } from "../../src/config.ts";
import {
  type ChainSpec,
  deployOn,
  type LocalChain,
  type LocalChainName,
  spawnAnvil,
  waitForRpc,
  withoutBuilds,
} from "./chains.ts";
import { freePort } from "./free-port.ts";

/**
 * Chain ids apart from the stack's (31337, 31338): a process that holds clients of both (viem's
 * nonce manager keys an account's nonces by address and chain id) never mixes their nonces.
 */
export const PRIVATE_CHAIN_IDS: Record<LocalChainName, number> = { source: 41337, destination: 41338 };

const START_TIMEOUT_MS = 30_000;

export interface PrivateChains {
  chains: LocalChain[];
  /** Stops the nodes (their state goes with them). */
  stop(): Promise<void>;
}

/**
 * Starts one anvil per name on a free port and deploys on them what the stack's chains hold (USDC,
 * the delegate, the DEX, the bridge linked between them, the subscription manager, the stealth relay)
 * with the stack's dev accounts funded. `logDir` keeps each node's output as `anvil-<name>.log`.
 */
export async function startPrivateChains(opts: {
  names: readonly LocalChainName[];
  logDir?: string;
  log?: (line: string) => void;
}): Promise<PrivateChains> {
  const log = opts.log ?? (() => {});
  const artifacts = loadArtifacts({ log });
  const specs: ChainSpec[] = [];
  for (const name of opts.names)
    specs.push({ name, chainId: PRIVATE_CHAIN_IDS[name], port: await freePort() });
  const children: ChildProcess[] = [];
  // Never left behind, even when the caller crashes before stop().
  const killAll = (): void => {
    for (const c of children) c.kill("SIGKILL");
  };
  process.once("exit", killAll);
  const stop = async (): Promise<void> => {
    process.off("exit", killAll);
    await Promise.all(
      children.map(async (c) => {
        if (c.exitCode !== null || c.signalCode !== null) return;
        const exited = new Promise((resolve) => c.once("exit", resolve));
        c.kill("SIGTERM");
        await exited;
      }),
    );
  };
  try {
    await Promise.all(
      specs.map(async (spec) => {
        const logPath = opts.logDir && path.join(opts.logDir, `anvil-${spec.name}.log`);
        const child = spawnAnvil(spec, { detached: false, ...(logPath ? { logPath } : {}) });
        children.push(child);
        const up = await waitForRpc(
          `http://127.0.0.1:${spec.port}`,
          spec.chainId,
          START_TIMEOUT_MS,
          () => child.exitCode !== null,
        );
        if (!up) throw new Error(`private anvil ${spec.name} did not come up on port ${spec.port}`);
      }),
    );
    const records = await deployOn(specs, { artifacts, log });
    return { chains: records.map(withoutBuilds), stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The CHAINS setting that gives a role these chains alone, each as a role is given the stack's
 * (src/app/infra.ts: the config's default LOCAL_CONFIRMATIONS).
 */
export function chainsSetting(chains: readonly LocalChain[]): string {
  const confirmations = parseConfig({}).LOCAL_CONFIRMATIONS;
  return JSON.stringify(chains.map((c) => localEvmChain(c, confirmations)));
}
