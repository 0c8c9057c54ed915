import { type PublicClient, parseAbiItem } from "viem";
import { type Address, type ChainAddress, type Hex, NATIVE_TOKEN } from "../../../domain/types.ts";
import { BaseError } from "../../../support/errors.ts";
import { mapConcurrent } from "../../../support/map-concurrent.ts";
import type { FoundTransfer } from "../../adapter.ts";
import { type BlockRef, type FetchedBlock, fetchBlocks, lower } from "./block-source.ts";

/**
 * Finds transfers into watched burners: ERC-20 `Transfer` logs and plain value transfers. Every
 * transfer found belongs to the block the caller expects at that height; anything else means the
 * chain moved under us and is either an error (the main scan) or ignored (a backfill).
 */

export const erc20Transfer = parseAbiItem(
  "event Transfer(address indexed from, address indexed to, uint256 value)",
);

/** A log or receipt came from another block than the one handed out at its height: retry from the checkpoint. */
export class ChainMovedError extends BaseError {
  override name = "ChainMovedError";
  readonly code = "chain_moved";
  readonly retryable = true;
}

const RECEIPT_CONCURRENCY = 10;

/**
 * Transfers to watched burners in a run of consecutive blocks: one getLogs over the whole run for the
 * Transfer event (filtered here by the watch set, which may be large), the blocks' transactions for
 * native value, and receipts only for the few matching transactions. Sorted by block, then log index.
 */
export async function findTransfers(args: {
  client: PublicClient;
  chainId: number;
  blocks: readonly FetchedBlock[];
  isWatched: (address: Address) => boolean;
}): Promise<FoundTransfer[]> {
  const { client, chainId, blocks, isWatched } = args;
  const first = blocks[0];
  const last = blocks.at(-1);
  if (!first || !last) return [];
  const byNumber = new Map(blocks.map((b) => [b.number, b]));
  const expected = (ref: BlockRef): void => {
    if (byNumber.get(ref.number)?.hash !== ref.hash) {
      throw new ChainMovedError(`block ${ref.number} is now ${ref.hash}, not the block handed out`);
    }
  };
  const logs = await transferLogs(client, first.number, last.number);
  const found: FoundTransfer[] = [];
  for (const log of logs) {
    const to = lower(log.args.to);
    if (log.removed || !isWatched(to) || log.args.value === 0n) continue;
    expected({ number: log.blockNumber, hash: log.blockHash });
    found.push(fromLog(chainId, log, to));
  }
  const sameBlock = (ref: BlockRef): boolean => {
    expected(ref);
    return true;
  };
  for (const t of await nativeTransfers(client, chainId, blocks, isWatched, sameBlock)) found.push(t);
  return sortTransfers(found);
}

/** Up to this many burners, a backfill asks the node for their logs by topic; past it, for all and filters. */
const TOPIC_FILTER_MAX = 32;

/**
 * Backfill for a batch of newly watched burners over `from..to`: one getLogs (filtered on the `to`
 * topic for a few burners, in memory for many) and one pass over the blocks for native value, however
 * many burners the batch holds. A block whose hash differs from `expectedHash` (when it knows one) is
 * skipped: the main scan is about to see that reorg and will rescan the new branch with them watched.
 */
export async function findTransfersTo(args: {
  client: PublicClient;
  chainId: number;
  /** canonicalised here (lower-case): the caller's spelling does not matter */
  burners: ReadonlySet<ChainAddress>;
  from: bigint;
  to: bigint;
  expectedHash: (number: bigint) => string | undefined;
}): Promise<FoundTransfer[]> {
  const { client, chainId, from, to } = args;
  if (to < from || args.burners.size === 0) return [];
  const burners = new Set([...args.burners].map(lower));
  const byTopic = burners.size <= TOPIC_FILTER_MAX ? [...burners] : undefined;
  const matches = (ref: BlockRef): boolean => {
    const want = args.expectedHash(ref.number);
    return want === undefined || want === ref.hash;
  };
  const [logs, blocks] = await Promise.all([
    transferLogs(client, from, to, byTopic),
    fetchBlocks(client, from, to),
  ]);
  const found: FoundTransfer[] = [];
  for (const log of logs) {
    const recipient = lower(log.args.to);
    if (log.removed || log.args.value === 0n || !burners.has(recipient)) continue;
    if (!matches({ number: log.blockNumber, hash: log.blockHash })) continue;
    found.push(fromLog(chainId, log, recipient));
  }
  const current = blocks.filter(matches);
  const byNumber = new Map(current.map((b) => [b.number, b]));
  const sameBlock = (ref: BlockRef): boolean => byNumber.get(ref.number)?.hash === ref.hash;
  for (const t of await nativeTransfers(client, chainId, current, (a) => burners.has(a), sameBlock))
    found.push(t);
  return sortTransfers(found);
}

/**
 * Transfer logs over `from..to` (only those to `burner` when given). strict: only logs shaped like
 * ERC-20; ERC-721 shares the topic but indexes its third argument. Providers cap the range or the
 * result size of one getLogs, so a refused range is asked for again in halves.
 */
async function transferLogs(
  client: PublicClient,
  from: bigint,
  to: bigint,
  burners?: Address[],
): Promise<TransferLog[]> {
  try {
    return await client.getLogs({
      event: erc20Transfer,
      fromBlock: from,
      toBlock: to,
      strict: true,
      ...(burners ? { args: { to: burners } } : {}),
    });
  } catch (err) {
    if (from >= to) throw err;
    const mid = from + (to - from) / 2n;
    const halves = await Promise.all([
      transferLogs(client, from, mid, burners),
      transferLogs(client, mid + 1n, to, burners),
    ]);
    return halves.flat();
  }
}

interface TransferLog {
  removed: boolean;
  address: Address;
  args: { from: Address; to: Address; value: bigint };
  transactionHash: Hex;
  logIndex: number;
  blockNumber: bigint;
  blockHash: Hex;
}

function fromLog(chainId: number, log: TransferLog, to: Address): FoundTransfer {
  return {
    chainId,
    token: lower(log.address),
    amount: log.args.value,
    txHash: log.transactionHash,
    logIndex: log.logIndex,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    from: lower(log.args.from),
    to,
  };
}

/**
 * Value transfers to watched addresses. Only top-level transactions are seen (value moved by a
 * contract's internal call needs traces); a reverted transaction moved nothing, so the receipt of
 * each match is checked.
 */
async function nativeTransfers(
  client: PublicClient,
  chainId: number,
  blocks: readonly FetchedBlock[],
  isWatched: (address: Address) => boolean,
  /** false: the receipt is from another block than the one scanned; skip it (or throw) */
  sameBlock: (ref: BlockRef) => boolean,
): Promise<FoundTransfer[]> {
  const candidates = blocks.flatMap((block) =>
    block.transactions
      .filter((tx) => tx.to !== null && tx.value > 0n && isWatched(tx.to))
      .map((tx) => ({ block, tx, to: tx.to as Address })),
  );
  const receipts = await mapConcurrent(candidates, RECEIPT_CONCURRENCY, ({ tx }) =>
    client.getTransactionReceipt({ hash: tx.hash }),
  );
  const found: FoundTransfer[] = [];
  candidates.forEach(({ block, tx, to }, i) => {
    const receipt = receipts[i];
    if (!receipt || !sameBlock({ number: receipt.blockNumber, hash: receipt.blockHash })) return;
    if (receipt.status !== "success") return;
    found.push({
      chainId,
      token: NATIVE_TOKEN,
      amount: tx.value,
      txHash: tx.hash,
      logIndex: -1, // a transaction carries at most one value
      blockNumber: block.number,
      blockHash: block.hash,
      from: tx.from,
      to,
    });
  });
  return found;
}

/** Deterministic order, so a rescan of the same blocks yields the same sequence. */
function sortTransfers(list: FoundTransfer[]): FoundTransfer[] {
  return list.sort((a, b) =>
    a.blockNumber !== b.blockNumber
      ? a.blockNumber < b.blockNumber
        ? -1
        : 1
      : a.logIndex !== b.logIndex
        ? a.logIndex - b.logIndex
        : a.txHash.localeCompare(b.txHash),
  );
}
