import type { BlockId, ChainAddress, Transfer } from "../domain/types.ts";
import type { TransferObserved } from "../kafka/records.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { BaseError } from "../support/errors.ts";
import type { ChainConfig, ChainFamily } from "./config.ts";

/**
 * What the service needs from a chain, whatever its family. One implementation per family
 * (src/chains/evm/ first); the roles and /health reach a chain only through this, so a family is
 * added with its adapter and its config schema, without touching the domain or the roles.
 */
export interface ChainAdapter {
  readonly family: ChainFamily;
  readonly chain: ChainConfig;
  /**
   * The canonical spelling of an address of this family (EVM: lower-case 0x hex; Solana: base58,
   * case kept), or null when `raw` is not one. The domain stores addresses as plain strings; this is
   * where they are validated.
   */
  parseAddress(raw: string): ChainAddress | null;
  /** The chain's indexer: a block source and a transfer finder, publishing TransferObserved. */
  createIndexer(deps: ChainIndexerDeps): ChainIndexer;
  /** The account that pays fees on this chain; null when none is configured (a read-only role). */
  readonly relayer: ChainAddress | null;
  /** The least the relayer must hold (wei, lamports) for /health to pass. */
  readonly minRelayerBalance: bigint;
  /** The relayer's balance in the chain's smallest unit, for /health; one try, no retries (the caller bounds its time). */
  relayerBalance(): Promise<bigint>;
  /** Settlement's side of the chain (sweeps, swaps, bridging): declared now, filled by the executor work. */
  readonly executor: ChainExecutor;
}

// ---------------------------------------------------------------------------------------------------
// Indexing

/** A block (EVM) or slot (Solana) by height and hash. */
export interface BlockRef {
  number: bigint;
  hash: BlockId;
}

/** What the indexer needs of every block a source hands out; a family's block adds what its finder needs. */
export interface ChainBlock extends BlockRef {
  /** unix seconds, by the chain's clock (freshness) */
  timestamp: bigint;
}

/**
 * Blocks a source and the indexer's checkpoint remember, to find a common ancestor after a reorg;
 * a deeper reorg stops the indexer for an operator (the source's too-deep error is terminal).
 */
export const REMEMBERED_BLOCKS = 256;

/**
 * Chain input as a discriminated union, so a reorg is a case the compiler makes the indexer handle.
 * `B` is the family's block: what its transfer finder needs from it.
 */
export type ChainInput<B extends BlockRef> = BlockInput<B> | ReorgInput;

/** A block handed out, with the chain head then: its depth is head - number, never below the confirmations. */
export type BlockInput<B extends BlockRef> = B & { kind: "block"; head: bigint };

export interface ReorgInput {
  kind: "reorg";
  /** The newest handed-out block still canonical; the next block input is its child. */
  commonAncestor: BlockRef;
  /** Handed-out blocks that are no longer canonical, oldest first. */
  dropped: BlockRef[];
}

/**
 * Follows a chain at a confirmation depth: blocks in order, each linked to the one before. A source
 * is opened on the blocks already handed out (the checkpoint's memory) and resumes after them.
 */
export interface BlockSource<B extends BlockRef> {
  /** One step: `[]` when nothing new is confirmed, `[reorg]`, or a run of consecutive blocks. */
  next(): Promise<Array<ChainInput<B>>>;
  /** The remembered blocks, oldest first (what a restart resumes from). */
  recent(): BlockRef[];
}

/** A transfer into a watched address. */
export interface FoundTransfer extends Transfer {
  to: ChainAddress;
}

/** Finds transfers into watched addresses. */
export interface TransferFinder<B extends BlockRef> {
  /** In a run of consecutive blocks just handed out by the block source. */
  inBlocks(blocks: readonly B[], isWatched: (address: ChainAddress) => boolean): Promise<FoundTransfer[]>;
  /**
   * In blocks `from..to`, already handed out, for newly watched addresses (a backfill); a transfer
   * from a block whose hash is not `expectedHash(number)` belongs to another branch and is left out.
   */
  toAddresses(args: {
    addresses: ReadonlySet<ChainAddress>;
    from: bigint;
    to: bigint;
    expectedHash: (number: bigint) => string | undefined;
  }): Promise<FoundTransfer[]>;
}

/**
 * added: newly watched. already_watched: the same session registered it before (the backfill runs
 * again, harmlessly, so a retried add after a crash completes it). conflict: another session owns it.
 */
export type WatchOutcome = "added" | "already_watched" | "conflict";

export interface ChainIndexerDeps {
  cassandra: CassandraClient;
  /** Resolves once the records are durably on chain.transfers, in order. */
  publish: (records: TransferObserved[]) => Promise<void>;
  log: (msg: string, fields?: object) => void;
  signal: AbortSignal;
  pollMs?: number;
}

export interface ChainIndexer {
  /** Watches burners for their sessions, backfilling recent blocks once for the whole batch. */
  watch(
    burners: ReadonlyArray<{ burner: string; sessionId: string }>,
  ): Promise<Array<{ outcome: WatchOutcome; burner: ChainAddress; owner: string }>>;
  /** Follows the chain until the signal aborts; rejects only on a terminal error. */
  run(): Promise<void>;
  status(): { chainId: number; lastBlock: bigint | null; lastBlockAt: number | null };
}

// ---------------------------------------------------------------------------------------------------
// Settlement (declared for the executor; no role calls it yet)

/** One transaction the executor asks a chain to send: a sweep, a swap, a bridge leg. */
export interface SendRequest {
  /** Idempotency key: a command id is sent at most once, so a retried command finds its first send. */
  commandId: string;
  /** The burner (or other account) the transaction acts for. */
  from: ChainAddress;
  /** Family-specific payload, built by the executor with the family's own helpers. */
  call: { kind: string; data: unknown };
}

export interface Sent {
  commandId: string;
  txHash: string;
}

export type Confirmation =
  | { status: "pending"; confirmations: number }
  | { status: "confirmed"; blockNumber: bigint; blockHash: string }
  | { status: "failed"; reason: string }
  /** dropped from the mempool or reorged out: the executor decides whether to send again */
  | { status: "dropped" };

export interface ChainExecutor {
  send(request: SendRequest): Promise<Sent>;
  confirm(sent: Sent): Promise<Confirmation>;
}

/**
 * The executor of a family whose settlement is not written yet: every call fails, saying so. No role
 * calls it today (the executor role starts idle); it exists so the interface is whole.
 */
export class NotImplementedUntilSettlement extends BaseError {
  override name = "NotImplementedUntilSettlement";
  readonly code = "not_implemented";
  readonly retryable = false;
}

export const executorNotImplementedUntilSettlement = (family: ChainFamily): ChainExecutor => ({
  send: () =>
    Promise.reject(new NotImplementedUntilSettlement(`${family} send: settlement is not built yet`)),
  confirm: () =>
    Promise.reject(new NotImplementedUntilSettlement(`${family} confirm: settlement is not built yet`)),
});
