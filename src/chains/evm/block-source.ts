import { setTimeout as sleep } from "node:timers/promises";
import { BlockNotFoundError, type PublicClient } from "viem";
import type { Address, Hex } from "../../domain/types.ts";
import { BaseError } from "../../support/errors.ts";
import type { BlockRef } from "../adapter.ts";

/**
 * Follows one EVM chain at a confirmation depth and turns it into chain input: blocks in order, each
 * linked to the one before, and a `reorg` whenever a block already handed out is no longer canonical.
 */

export type { BlockRef };

/** What native-transfer detection needs from a transaction; nothing else is kept. */
export interface BlockTx {
  hash: Hex;
  from: Address;
  to: Address | null;
  value: bigint;
}

export interface FetchedBlock extends BlockRef {
  parentHash: Hex;
  /** unix seconds */
  timestamp: bigint;
  transactions: readonly BlockTx[];
}

export interface BlockInput extends FetchedBlock {
  kind: "block";
  /** Chain head when the block was handed out: its depth is head - number, never below `confirmations`. */
  head: bigint;
}

export interface ReorgInput {
  kind: "reorg";
  /** The newest handed-out block that is still canonical; the next block input is its child. */
  commonAncestor: BlockRef;
  /** Handed-out blocks that are no longer canonical, oldest first. */
  dropped: BlockRef[];
}

export type ChainInput = BlockInput | ReorgInput;

/** The chain forked below every block we remember: no safe ancestor, so an operator has to look. */
export class ReorgTooDeepError extends BaseError {
  override name = "ReorgTooDeepError";
  readonly code = "reorg_too_deep";
  readonly retryable = false;
}

export interface BlockSourceOptions {
  client: PublicClient;
  confirmations: number;
  pollMs: number;
  signal: AbortSignal;
  /**
   * Blocks already handed out, oldest first and each the parent of the next (from the checkpoint).
   * Empty on the very first start, which begins at the confirmed head (head - confirmations).
   */
  resume: readonly BlockRef[];
  /** Most blocks handed out in one step while catching up. */
  batchSize?: number;
  /** Recent blocks remembered to find a common ancestor; a deeper reorg is a ReorgTooDeepError. */
  memory?: number;
}

export interface BlockSource {
  /**
   * One step: `[]` after waiting `pollMs` when nothing new is confirmed, `[reorg]`, or a run of
   * consecutive blocks. A reorg always comes alone, before the blocks of the new branch.
   */
  next(): Promise<ChainInput[]>;
  /** The remembered blocks, oldest first; the last one is the newest handed out. */
  recent(): BlockRef[];
}

export const DEFAULT_MEMORY = 256;
const DEFAULT_BATCH = 100;
/** Parallel block requests; with a batching transport they travel as few JSON-RPC batches. */
const FETCH_CONCURRENCY = 25;

export function createBlockSource(opts: BlockSourceOptions): BlockSource {
  const { client, signal } = opts;
  const confirmations = BigInt(opts.confirmations);
  const batchSize = BigInt(opts.batchSize ?? DEFAULT_BATCH);
  const memory = opts.memory ?? DEFAULT_MEMORY;
  // Invariant: contiguous and linked, every entry is the parent of the next.
  const recent: BlockRef[] = opts.resume.map(({ number, hash }) => ({ number, hash }));
  let startAt: bigint | null = null;

  const remember = (b: BlockRef): void => {
    recent.push({ number: b.number, hash: b.hash });
    if (recent.length > memory) recent.splice(0, recent.length - memory);
  };

  async function next(): Promise<ChainInput[]> {
    signal.throwIfAborted();
    const head = await client.getBlockNumber({ cacheTime: 0 });
    const target = head - confirmations;
    const tip = recent.at(-1);
    if (tip === undefined && startAt === null) startAt = target < 0n ? 0n : target;
    const from = tip ? tip.number + 1n : (startAt ?? 0n);

    if (target < from) {
      // Nothing new is confirmed, but the tip itself may have been replaced at the same height.
      if (tip && target === tip.number && (await canonicalHash(tip.number)) !== tip.hash)
        return [await rewind()];
      await sleep(opts.pollMs, undefined, { signal });
      return [];
    }

    const to = target < from + batchSize - 1n ? target : from + batchSize - 1n;
    const blocks = await fetchBlocks(client, from, to);
    const out: BlockInput[] = [];
    let parent = tip?.hash;
    for (const block of blocks) {
      if (parent !== undefined && block.parentHash !== parent) {
        if (out.length === 0) return [await rewind()];
        // The chain moved while the run was fetched: hand out the linked prefix, the next step sees the rest.
        break;
      }
      out.push({ kind: "block", ...block, head });
      remember(block);
      parent = block.hash;
    }
    return out;
  }

  /** Walks back through the remembered blocks to the newest one still canonical. */
  async function rewind(): Promise<ReorgInput> {
    const WALK_CHUNK = 16; // most reorgs are a block or two deep; look at a few at once
    for (let end = recent.length; end > 0; end -= WALK_CHUNK) {
      const slice = recent.slice(Math.max(0, end - WALK_CHUNK), end).reverse();
      const hashes = await Promise.all(slice.map((b) => canonicalHash(b.number)));
      // The first match from the top is the ancestor: a canonical block's ancestors are all canonical.
      const at = slice.findIndex((b, i) => hashes[i] === b.hash);
      const ancestor = slice[at];
      if (ancestor) {
        const dropped = recent.splice(recent.indexOf(ancestor) + 1);
        return { kind: "reorg", commonAncestor: { ...ancestor }, dropped };
      }
    }
    const oldest = recent[0];
    throw new ReorgTooDeepError(
      `chain forked below every remembered block (oldest ${oldest?.number ?? "none"}); ` +
        "raise the memory or re-seed the checkpoint",
    );
  }

  async function canonicalHash(number: bigint): Promise<Hex | null> {
    try {
      return (await client.getBlock({ blockNumber: number })).hash;
    } catch (err) {
      // A block above a shortened chain does not exist: it is certainly not the one we remember.
      if (err instanceof BlockNotFoundError) return null;
      throw err;
    }
  }

  return { next, recent: () => recent.map((b) => ({ ...b })) };
}

/** Blocks `from..to` with their transactions, fetched in parallel and returned in order. */
export async function fetchBlocks(client: PublicClient, from: bigint, to: bigint): Promise<FetchedBlock[]> {
  const numbers: bigint[] = [];
  for (let n = from; n <= to; n++) numbers.push(n);
  return mapConcurrent(numbers, FETCH_CONCURRENCY, async (blockNumber) => {
    const block = await client.getBlock({ blockNumber, includeTransactions: true });
    return {
      number: block.number,
      hash: block.hash,
      parentHash: block.parentHash,
      timestamp: block.timestamp,
      transactions: block.transactions.map((tx) => ({
        hash: tx.hash,
        from: lower(tx.from),
        to: tx.to ? lower(tx.to) : null,
        value: tx.value,
      })),
    };
  });
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let nextIndex = 0;
  const worker = async (): Promise<void> => {
    while (nextIndex < items.length) {
      const i = nextIndex++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

export const lower = (a: string): Address => a.toLowerCase() as Address;
