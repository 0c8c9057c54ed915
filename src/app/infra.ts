import path from "node:path";
import { ensureStack, readStack, type StackInfo } from "../../deploy/local/stack.ts";
import type { Config, EvmChainConfig } from "../config.ts";
import { BaseError } from "../support/errors.ts";

/** Where the service finds its servers: the environment first, else the local stack. */
export interface Infra {
  brokers: string[];
  cassandra: { contactPoints: string[]; localDataCenter: string; keyspace: string };
  chains: EvmChainConfig[];
}

/** The folder of the local stack: where STACK_FILE lives (its servers' data, logs and pid files too). */
export const stackRoot = (config: Pick<Config, "STACK_FILE">): string => path.dirname(config.STACK_FILE);

/** Terminal: no server to talk to until an operator starts the stack or names one. */
export class InfraError extends BaseError {
  override name = "InfraError";
  readonly code = "infra_missing";
  readonly retryable = false;
}

/**
 * `ensure`: start the local stack for whatever the environment does not name (npm start, tests).
 * Without it, a role reads the stack file written by a previous `stack start`.
 */
export async function resolveInfra(
  config: Config,
  opts: { ensure: boolean; log?: (l: string) => void },
): Promise<Infra> {
  const needStack = !config.KAFKA_BROKERS || !config.CASSANDRA_CONTACT_POINTS || !config.evmChains;
  let stack: StackInfo | null = null;
  if (needStack) {
    const root = stackRoot(config);
    stack = opts.ensure
      ? await ensureStack({ root, ...(opts.log ? { log: opts.log } : {}) })
      : await readStack(root);
    if (!stack) {
      throw new InfraError(
        `no local stack at ${config.STACK_FILE}: run \`npm run stack -- start\`, or set KAFKA_BROKERS, CASSANDRA_CONTACT_POINTS and EVM_CHAINS`,
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
    chains:
      config.evmChains ??
      (stack?.chains ?? []).map((c) => ({
        name: c.name,
        chainId: c.chainId,
        rpcUrl: c.rpcUrl,
        delegate: c.delegate.toLowerCase() as `0x${string}`,
        usdc: c.usdc.toLowerCase() as `0x${string}`,
        confirmations: 2,
        relayer: {
          address: c.relayer.address.toLowerCase() as `0x${string}`,
          privateKey: c.relayer.privateKey,
        },
        minRelayerBalanceWei: "10000000000000000",
      })),
  };
}
