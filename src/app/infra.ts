import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { type ChainConfig, localEvmChain, localSolanaChain } from "../chains/config.ts";
import type { Config } from "../config.ts";
import type { VendorKeys } from "../providers/types.ts";
import { BaseError } from "../support/errors.ts";

/** Where the service finds its servers: the environment first, else the local stack. */
export interface Infra {
  brokers: string[];
  cassandra: { contactPoints: string[]; localDataCenter: string; keyspace: string };
  chains: ChainConfig[];
  /** The local stack's CCTP attester (the executor's attestation API when ATTESTATION_API_URL is unset). */
  attestationApiUrl?: string | undefined;
  /** The local stack's provider servers (deploy/local/providers/), used where no provider key is set. */
  providers?: VendorKeys | undefined;
}

/**
 * What the service reads from the local stack's file (the rest of the file is for people driving
 * the stack by hand). The stack itself lives in deploy/local/, which imports src/ and never the
 * other way round: a process that may start the stack is handed `EnsureStack` by its entry point.
 */
const stackFileSchema = z.object({
  kafka: z.object({ brokers: z.array(z.string()) }),
  cassandra: z.object({ contactPoints: z.array(z.string()), localDataCenter: z.string() }),
  chains: z.array(
    z.object({
      name: z.string(),
      chainId: z.number().int(),
      rpcUrl: z.string(),
      delegate: z.string(),
      usdc: z.string(),
      relayer: z.object({ address: z.string(), privateKey: z.string() }),
      subscriptions: z.string().optional(),
      stealthRelay: z.string().optional(),
      // The local DEX's tokens besides USDC: deposits of them are swapped, so the chain accepts them.
      dex: z.object({ weth: z.string(), dai: z.string() }).optional(),
      cctp: z
        .object({ domain: z.number(), messageTransmitter: z.string(), tokenMessenger: z.string() })
        .optional(),
    }),
  ),
  attester: z.object({ url: z.string() }).optional(),
  // Stack files written before the local provider servers have none.
  providers: z
    .object({
      alchemy: z
        .object({
          rpcUrl: z.string(),
          apiUrl: z.string(),
          apiKey: z.string(),
          networks: z.record(z.string(), z.string()),
        })
        .optional(),
      zeroEx: z.object({ apiUrl: z.string(), apiKey: z.string() }).optional(),
      jupiter: z.object({ apiUrl: z.string(), apiKey: z.string() }).optional(),
    })
    .optional(),
  // Stack files written before the local Solana node (or its vault) have none.
  solana: z
    .object({
      rpcUrl: z.string(),
      wsUrl: z.string(),
      usdcMint: z.string(),
      relayerKey: z.object({ secretKey: z.string() }),
      vaultKey: z.object({ publicKey: z.string() }).optional(),
      finalityLagSlots: z.number().int(),
    })
    .optional(),
});
export type StackFile = z.infer<typeof stackFileSchema>;

/** Starts whatever part of the local stack is not running and returns its stack file's content. */
export type EnsureStack = (opts: { root: string; log?: (line: string) => void }) => Promise<StackFile>;

/** The folder of the local stack: where STACK_FILE lives (its servers' data, logs and pid files too). */
export const stackRoot = (config: Pick<Config, "STACK_FILE">): string => path.dirname(config.STACK_FILE);

/** Terminal: no server to talk to until an operator starts the stack or names one. */
export class InfraError extends BaseError {
  override name = "InfraError";
  readonly code = "infra_missing";
  readonly retryable = false;
}

/** The stack file, or null when there is none (a file that is not a stack file is an error). */
export async function readStackFile(file: string): Promise<StackFile | null> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return null;
  }
  const parsed = stackFileSchema.safeParse(JSON.parse(text));
  if (!parsed.success)
    throw new InfraError(`${file} is not a stack file: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}

/**
 * With `ensureStack` (npm start, tests): start the local stack for whatever the environment does
 * not name. Without it, a role reads the stack file written by a previous `stack start`.
 */
export async function resolveInfra(
  config: Config,
  opts: { ensureStack?: EnsureStack | undefined; log?: (l: string) => void },
): Promise<Infra> {
  const needStack = !config.KAFKA_BROKERS || !config.CASSANDRA_CONTACT_POINTS || !config.chains;
  let stack: StackFile | null = null;
  if (needStack) {
    stack = opts.ensureStack
      ? await opts.ensureStack({ root: stackRoot(config), ...(opts.log ? { log: opts.log } : {}) })
      : await readStackFile(config.STACK_FILE);
    if (!stack) {
      throw new InfraError(
        `no local stack at ${config.STACK_FILE}: run \`npm run stack -- start\`, or set KAFKA_BROKERS, CASSANDRA_CONTACT_POINTS and CHAINS`,
      );
    }
  }
  return {
    brokers: config.KAFKA_BROKERS ?? stack?.kafka.brokers ?? [],
    cassandra: {
      contactPoints: config.CASSANDRA_CONTACT_POINTS ?? stack?.cassandra.contactPoints ?? [],
      localDataCenter: config.CASSANDRA_CONTACT_POINTS
        ? config.CASSANDRA_LOCAL_DC
        : (stack?.cassandra.localDataCenter ?? "datacenter1"),
      keyspace: config.CASSANDRA_KEYSPACE,
    },
    chains: config.chains ?? [
      ...(stack?.chains ?? []).map((c) => localEvmChain(c, config.LOCAL_CONFIRMATIONS)),
      ...(stack?.solana ? [localSolanaChain(stack.solana)] : []),
    ],
    attestationApiUrl: stack?.attester?.url,
    providers: stack?.providers,
  };
}
