import { type Address, createPublicClient, type Hex, http, type PublicClient, parseAbiItem } from "viem";
import type { SubscriptionCommand } from "../../../domain/subscription/types.ts";
import type { CassandraClient } from "../../../store/cassandra.ts";
import { subscriptionIdFromDigest } from "./subscriptions.ts";

const CANCELED = parseAbiItem("event Canceled(bytes32 indexed mandate)");
/** Blocks per eth_getLogs: within what public nodes accept. */
const SPAN = 2_000n;

export interface SubscriptionWatcherOptions {
  chainId: number;
  rpcUrl: string;
  manager: Address;
  /** Blocks a Canceled log must be buried under before it is mirrored (the indexer's depth). */
  confirmations: number;
  cassandra: CassandraClient;
  /** Sends the cancels to subscription.commands; resolves once they are durable. */
  send: (commands: SubscriptionCommand[]) => Promise<void>;
  pollMs: number;
  signal: AbortSignal;
  log: (msg: string, fields?: object) => void;
  now?: () => number;
}

/**
 * Mirrors on-chain cancels: every Canceled(digest) log of the chain's SubscriptionManager, once
 * `confirmations` deep, becomes a CancelSubscription (source chain) for the subscription whose id
 * derives from the digest. The command id names the log, so a block mirrored twice (a crash between
 * sending and saving the checkpoint) is a retry, and the decider makes every later cancel of a
 * canceled subscription a no-op, so whatever path came first there is one subscription.canceled. A
 * digest no merchant registered is refused by the actor as not found and changes nothing. At least
 * once: the checkpoint moves only after the block range's commands are on Kafka. A log reorged out
 * after `confirmations` blocks is not retracted (a cancel is the payer's wish either way).
 */
export function createSubscriptionWatcher(opts: SubscriptionWatcherOptions) {
  const client = createPublicClient({
    transport: http(opts.rpcUrl, { timeout: 10_000, retryCount: 1 }),
  }) as PublicClient;
  const now = opts.now ?? Date.now;
  const Q = { prepare: true } as const;
  const load = async (): Promise<bigint> => {
    const rs = await opts.cassandra.execute(
      "SELECT block_number FROM subscription_watch_checkpoints WHERE chain_id = ?",
      [opts.chainId],
      Q,
    );
    const n = rs.first()?.get("block_number") as { toString(): string } | undefined;
    return n === undefined ? -1n : BigInt(n.toString());
  };
  const save = (block: bigint) =>
    opts.cassandra.execute(
      "INSERT INTO subscription_watch_checkpoints (chain_id, block_number) VALUES (?, ?)",
      [opts.chainId, block],
      Q,
    );

  async function step(done: bigint): Promise<bigint> {
    const safe = (await client.getBlockNumber()) - BigInt(opts.confirmations);
    if (safe <= done) return done;
    const to = safe < done + SPAN ? safe : done + SPAN;
    const logs = await client.getLogs({
      address: opts.manager,
      event: CANCELED,
      fromBlock: done + 1n,
      toBlock: to,
    });
    const commands = logs.flatMap((l): SubscriptionCommand[] =>
      l.args.mandate && l.transactionHash
        ? [cancelCommand(opts.chainId, l.args.mandate, l.transactionHash, l.logIndex ?? 0, now())]
        : [],
    );
    if (commands.length > 0) {
      await opts.send(commands);
      opts.log("on-chain cancels mirrored", {
        chainId: opts.chainId,
        count: commands.length,
        to: String(to),
      });
    }
    await save(to);
    return to;
  }

  return {
    async run(): Promise<void> {
      let done = await load();
      while (!opts.signal.aborted) {
        try {
          const next = await step(done);
          if (next > done) {
            done = next;
            continue; // more may be waiting: no pause while catching up
          }
        } catch (err) {
          opts.log("subscription watcher step failed; retrying", { chainId: opts.chainId, err: String(err) });
        }
        await new Promise((r) => setTimeout(r, opts.pollMs));
      }
    },
  };
}

export function cancelCommand(
  chainId: number,
  digest: Hex,
  txHash: Hex,
  logIndex: number,
  at: number,
): SubscriptionCommand {
  return {
    type: "CancelSubscription",
    data: {
      subscriptionId: subscriptionIdFromDigest(digest),
      source: "chain",
      merchantId: null,
      signature: null,
      txHash,
    },
    metadata: { commandId: `chain-cancel:${chainId}:${txHash}:${logIndex}`, issuedAt: at, replyTo: null },
  };
}
