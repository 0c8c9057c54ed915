import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { ensureAttester, stopAttester } from "./attester.ts";
import { ensureCassandra } from "./cassandra.ts";
import { ensureChains, type LocalChain, stopChains } from "./chains.ts";
import { ensureKafka } from "./kafka.ts";
import { stopCassandra, stopKafka } from "./processes.ts";
import { ensureProviders, type LocalProviderUrls, stopProviders } from "./providers/launcher.ts";
import { ensureSolana, type LocalSolana, stopSolana } from "./solana/launcher.ts";

/**
 * The whole local stack: Kafka, Cassandra, two anvil chains with the contracts deployed and a Solana node. What a
 * user needs to drive it is written to the stack file (default .local/stack.json, docs/LOCAL.md).
 */
export interface StackInfo {
  kafka: { brokers: string[] };
  cassandra: { contactPoints: string[]; localDataCenter: string };
  chains: LocalChain[];
  /** The local CCTP attester: Circle's attestation API for the local bridge (the executor's ATTESTATION_API_URL). */
  attester: { url: string };
  /** The local Solana node (deploy/local/solana/): its RPC and WebSocket URLs, USDC mint and funded keys. */
  solana: LocalSolana;
  /** The local provider servers (deploy/local/providers/): Alchemy's and 0x's wire forms over the local chains. */
  providers: LocalProviderUrls;
  logs: string;
  /** Which servers this call started (false: they were already running or came from the environment). */
  started: {
    kafka: boolean;
    cassandra: boolean;
    chains: boolean;
    attester: boolean;
    solana: boolean;
    providers: boolean;
  };
}

export const DEFAULT_ROOT = ".local";
/** What `npm run stack -- <action>` does (deploy/local/cli.ts handles each; docs/CLI.md lists them). */
export const STACK_ACTIONS = ["start", "stop", "status"] as const;
export type StackAction = (typeof STACK_ACTIONS)[number];
export const stackFile = (root: string) => path.join(root, "stack.json");

export async function ensureStack(
  opts: { root?: string; log?: (line: string) => void } = {},
): Promise<StackInfo> {
  const root = path.resolve(opts.root ?? DEFAULT_ROOT);
  const log = opts.log ?? (() => {});
  await mkdir(root, { recursive: true });
  // Started side by side: the JVMs take the longest and do not depend on each other.
  const [kafka, cassandra, chains, solana] = await Promise.all([
    ensureKafka({ root, log }),
    ensureCassandra({ root, log }),
    ensureChains({ root, log }),
    ensureSolana({ root, log }),
  ]);
  // After the chains: it attests for the bridge they deployed.
  // After the chains and the Solana node too: they read them (Jupiter the node's pool). Beside the attester.
  const [attester, providers] = await Promise.all([
    ensureAttester({ root, chains: chains.chains, log }),
    ensureProviders({ root, chains: chains.chains, solana, log }),
  ]);
  const info: StackInfo = {
    kafka: { brokers: kafka.brokers },
    cassandra: { contactPoints: cassandra.contactPoints, localDataCenter: cassandra.localDataCenter },
    chains: chains.chains,
    attester: { url: attester.url },
    solana: (({ started: _, ...entry }) => entry)(solana),
    providers: providers.providers,
    logs: path.join(root, "logs"),
    started: {
      kafka: kafka.started,
      cassandra: cassandra.started,
      chains: chains.started,
      attester: attester.started,
      solana: solana.started,
      providers: providers.started,
    },
  };
  await writeFile(stackFile(root), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}

export async function readStack(root = DEFAULT_ROOT): Promise<StackInfo | null> {
  try {
    return JSON.parse(await readFile(stackFile(path.resolve(root)), "utf8")) as StackInfo;
  } catch {
    return null;
  }
}

/** Stops what runs from this root (each part only if its pid file names a live process of ours). */
export async function stopStack(opts: { root?: string; log?: (line: string) => void } = {}): Promise<void> {
  const root = path.resolve(opts.root ?? DEFAULT_ROOT);
  await stopAttester(root, opts.log);
  await stopProviders(root, opts.log);
  await Promise.all([
    stopSolana(root, opts.log),
    stopKafka(root),
    stopCassandra(root),
    stopChains({ root, ...(opts.log ? { log: opts.log } : {}) }),
  ]);
}
