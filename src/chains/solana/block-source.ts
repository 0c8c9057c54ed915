import { setTimeout as sleep } from "node:timers/promises";
import { type ConfirmedTransactionMeta, type Connection, SolanaJSONRPCError } from "@solana/web3.js";
import { mapConcurrent } from "../../support/map-concurrent.ts";
import {
  type BlockInput,
  type BlockRef,
  type BlockSource,
  type ChainBlock,
  type ChainInput,
  REMEMBERED_BLOCKS,
  type ReorgInput,
} from "../adapter.ts";
import { ReorgTooDeepError } from "../reorg-too-deep.ts";

/**
 * Follows a Solana cluster by slot at `confirmed`: the blocks of the slots `getBlocks` lists (a
 * skipped slot has none), in order, each linked to the one before by its parent slot and blockhash,
 * and a `reorg` when a block handed out is no longer the cluster's. A block's number is its slot, its
 * hash its blockhash.
 */

/** What the transfer finder reads of a successful transaction; failed ones moved nothing but the fee. */
export interface SolanaTx {
  signature: string;
  /** The message's account keys, then those loaded from lookup tables (writable, then read-only). */
  accountKeys: readonly string[];
  meta: Pick<
    ConfirmedTransactionMeta,
    "preBalances" | "postBalances" | "preTokenBalances" | "postTokenBalances"
  >;
}

export interface SolanaBlock extends ChainBlock {
  parentSlot: bigint;
  previousBlockhash: string;
  transactions: readonly SolanaTx[];
}

export interface SolanaBlockSourceOptions {
  connection: Connection;
  pollMs: number;
  signal: AbortSignal;
  /** Blocks already handed out, oldest first (from the checkpoint); empty: start at the confirmed slot. */
  resume: readonly BlockRef[];
  /** Most slots looked at in one step while catching up. */
  batchSize?: number;
}

const DEFAULT_BATCH = 50;
const FETCH_CONCURRENCY = 8;
/** JSON-RPC errors that say a slot has no block (skipped, or not kept): not an error of the node. */
const NO_BLOCK_CODES = new Set([-32007, -32009, -32004]);

export function createSolanaBlockSource(opts: SolanaBlockSourceOptions): BlockSource<SolanaBlock> {
  const { connection, signal } = opts;
  const batchSize = BigInt(opts.batchSize ?? DEFAULT_BATCH);
  const recent: BlockRef[] = opts.resume.map(({ number, hash }) => ({ number, hash }));
  let startAt: bigint | null = null;
  // Slots up to here were listed and had no block: the next step looks past them.
  let scannedTo: bigint | null = null;

  const remember = (b: BlockRef): void => {
    recent.push({ number: b.number, hash: b.hash });
    if (recent.length > REMEMBERED_BLOCKS) recent.splice(0, recent.length - REMEMBERED_BLOCKS);
  };

  async function next(): Promise<Array<ChainInput<SolanaBlock>>> {
    signal.throwIfAborted();
    // One slot behind `confirmed`: the local node's confirmed slot is the one still taking
    // transactions (a validator's is complete), and a block handed out must never grow afterwards.
    // The cost is one slot (~400 ms) of detection latency.
    const head = BigInt(await connection.getSlot("confirmed")) - 1n;
    const tip = recent.at(-1);
    if (tip === undefined && startAt === null) startAt = head;
    let from = tip ? tip.number + 1n : (startAt ?? head);
    if (scannedTo !== null && scannedTo >= from) from = scannedTo + 1n;
    if (head < from) {
      await sleep(opts.pollMs, undefined, { signal });
      return [];
    }
    const to = head < from + batchSize - 1n ? head : from + batchSize - 1n;
    const slots = await connection.getBlocks(Number(from), Number(to), "confirmed");
    const blocks = await mapConcurrent(slots, FETCH_CONCURRENCY, (slot) => fetchBlock(connection, slot));
    const out: Array<BlockInput<SolanaBlock>> = [];
    let parent = tip;
    for (const block of blocks) {
      if (block === null) break; // listed, then gone: the next step looks again
      if (parent && !linked(block, parent)) {
        if (out.length === 0) return [await rewind()];
        break; // the cluster moved while the run was fetched: the next step sees the rest
      }
      out.push({ kind: "block", ...block, head });
      remember(block);
      parent = block;
    }
    if (out.length === blocks.length) scannedTo = to;
    return out;
  }

  /** Walks back through the remembered blocks to the newest one still the cluster's. */
  async function rewind(): Promise<ReorgInput> {
    for (let i = recent.length - 1; i >= 0; i--) {
      const ref = recent[i] as BlockRef;
      const now = await fetchBlock(connection, Number(ref.number), "none");
      if (now?.hash === ref.hash) {
        const dropped = recent.splice(i + 1);
        scannedTo = null;
        return { kind: "reorg", commonAncestor: { ...ref }, dropped };
      }
    }
    throw new ReorgTooDeepError(
      `cluster forked below every remembered slot (oldest ${recent[0]?.number ?? "none"}); re-seed the checkpoint`,
    );
  }

  return { next, recent: () => recent.map((b) => ({ ...b })) };
}

/**
 * A block follows `parent` when it names it as its parent slot and blockhash. A parent slot after
 * `parent` that getBlocks did not list is accepted: a node that forgets old empty slots (the local
 * one) lists only those it keeps, and a parent slot before `parent`, or `parent`'s slot with another
 * hash, is a fork.
 */
const linked = (block: SolanaBlock, parent: BlockRef): boolean =>
  block.parentSlot === parent.number
    ? block.previousBlockhash === parent.hash
    : block.parentSlot > parent.number;

/** A slot's block at `confirmed`, or null when the slot has none. */
export async function fetchBlock(
  connection: Connection,
  slot: number,
  details: "full" | "none" = "full",
): Promise<SolanaBlock | null> {
  try {
    const block = await connection.getBlock(slot, {
      commitment: "confirmed",
      maxSupportedTransactionVersion: 0,
      transactionDetails: details,
      rewards: false,
    });
    if (!block) return null;
    const transactions: SolanaTx[] = [];
    for (const tx of "transactions" in block ? block.transactions : []) {
      if (!tx.meta || tx.meta.err !== null) continue;
      const loaded = tx.meta.loadedAddresses;
      const accountKeys = [
        ...tx.transaction.message.staticAccountKeys.map((k) => k.toBase58()),
        ...(loaded ? [...loaded.writable, ...loaded.readonly].map((k) => k.toBase58()) : []),
      ];
      transactions.push({ signature: tx.transaction.signatures[0] as string, accountKeys, meta: tx.meta });
    }
    return {
      number: BigInt(slot),
      hash: block.blockhash,
      parentSlot: BigInt(block.parentSlot),
      previousBlockhash: block.previousBlockhash,
      timestamp: BigInt(block.blockTime ?? Math.floor(Date.now() / 1000)),
      transactions,
    };
  } catch (err) {
    if (err instanceof SolanaJSONRPCError && NO_BLOCK_CODES.has(Number(err.code))) return null;
    throw err;
  }
}
