import { setTimeout as sleep } from "node:timers/promises";
import { BlockNotFoundError, type PublicClient } from "viem";
import type { Address, Hex } from "../../../domain/types.ts";
import { mapConcurrent } from "../../../support/map-concurrent.ts";
import {
  type BlockInput as AnyBlockInput,
  type BlockSource as AnyBlockSource,
  type ChainInput as AnyChainInput,
  type BlockRef,
  type ChainBlock,
  REMEMBERED_BLOCKS,
  type ReorgInput,
} from "../../adapter.ts";
import { ReorgTooDeepError } from "../../reorg-too-deep.ts";

/**
 * Follows one EVM chain at a confirmation depth and turns it into chain input: blocks in order, each
 * linked to the one before, and a `reorg` whenever a block already handed out is no longer canonical.
 */

export type { BlockRef, ReorgInput };

/** What native-transfer detection needs from a transaction; nothing else is kept. */
export interface BlockTx {
  hash: Hex;
  from: Address;
  to: Address | null;
  value: bigint;
}

/** An EVM block as its source hands it out: the chain-neutral block and what the transfer finder reads. */
export interface FetchedBlock extends ChainBlock {
  parentHash: Hex;
  transactions: readonly BlockTx[];
}

export type BlockInput = AnyBlockInput<FetchedBlock>;
export type ChainInput = AnyChainInput<FetchedBlock>;

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

/**
 * The neutral BlockSource over EVM blocks. `next()` answers `[]` after waiting `pollMs` when nothing
 * new is confirmed, `[reorg]`, or a run of consecutive blocks; a reorg always comes alone, before the
 * blocks of the new branch.
 */
export type BlockSource = AnyBlockSource<FetchedBlock>;

const DEFAULT_BATCH = 100;
/** Parallel block requests; with a batching transport they travel as few JSON-RPC batches. */
const FETCH_CONCURRENCY = 25;

export function createBlockSource(opts: BlockSourceOptions): BlockSource {
  const { client, signal } = opts;
  const confirmations = BigInt(opts.confirmations);
  const batchSize = BigInt(opts.batchSize ?? DEFAULT_BATCH);
  const memory = opts.memory ?? REMEMBERED_BLOCKS;
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

export const lower = (a: string): Address => a.toLowerCase() as Address;
