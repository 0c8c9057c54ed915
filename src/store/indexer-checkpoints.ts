import { z } from "zod";
import type { BlockRef } from "../chains/adapter.ts";
import { FINALITIES } from "../domain/types.ts";
import { isChainAddress, isChainHash } from "../record-fields/fields.ts";
import type { TransferObserved } from "../records/chain-transfers.ts";
import type { CassandraClient } from "./cassandra.ts";

/**
 * The indexer's durable position on one chain (tables in migrations/0003_indexer.cql), whatever
 * the chain's family.
 * Order of writes per step: published rows, then Kafka, then the checkpoint. So every record that
 * may have reached Kafka has a row to retract it from, and the checkpoint never passes a block
 * whose records are not on Kafka.
 */

export interface Checkpoint extends BlockRef {
  /** unix seconds of block `number`, or null when unknown (after a move back to an ancestor) */
  timestamp: bigint | null;
  /** Handed-out blocks, oldest first, contiguous; the last one is this checkpoint. */
  recent: BlockRef[];
}

/** A block the indexer published transfers from, with the exact records it published. */
export interface PublishedBlock extends BlockRef {
  records: TransferObserved[];
}

export interface CheckpointStore {
  load(): Promise<{ checkpoint: Checkpoint | null; published: PublishedBlock[] }>;
  /** Upserts rows; call before publishing their records. */
  record(blocks: readonly PublishedBlock[]): Promise<void>;
  remove(numbers: readonly bigint[]): Promise<void>;
  /** Moves the checkpoint (forward after publishing, or back to a reorg's common ancestor). */
  save(checkpoint: Checkpoint): Promise<void>;
  /** Marks the indexer alive and caught up without moving it (freshness while the chain is quiet). */
  touch(): Promise<void>;
}

export interface Freshness {
  chainId: number;
  lastBlock: bigint | null;
  /** unix ms of the last processed block, by the chain's clock */
  blockTimestamp: number | null;
  /** unix ms when the indexer last advanced or confirmed it is caught up */
  updatedAt: number | null;
}

// The service's client maps bigint columns to JS bigint (useBigIntAsLong), so bigint goes in as is.
const long = (n: bigint) => n;
const big = (v: unknown): bigint => BigInt(String(v));
const Q = { prepare: true } as const;

export function createCheckpointStore(client: CassandraClient, chainId: number): CheckpointStore {
  return {
    async load() {
      const cp = (
        await client.execute(
          "SELECT block_number, block_hash, block_timestamp, recent_blocks FROM indexer_checkpoints WHERE chain_id = ?",
          [chainId],
          Q,
        )
      ).first();
      let checkpoint: Checkpoint | null = null;
      if (cp && cp.block_number !== null) {
        const ref = { number: big(cp.block_number), hash: String(cp.block_hash) };
        const ts = cp.block_timestamp as Date | null;
        const recent = decodeRecent(cp.recent_blocks as string | null);
        checkpoint = {
          ...ref,
          timestamp: ts ? BigInt(Math.floor(ts.getTime() / 1000)) : null,
          // the recent list must end at the checkpoint; if it does not, the checkpoint alone is the memory
          recent: recent.at(-1)?.hash === ref.hash ? recent : [ref],
        };
      }
      const published: PublishedBlock[] = [];
      const rows = await client.execute(
        "SELECT block_number, block_hash, transfers FROM indexer_published WHERE chain_id = ?",
        [chainId],
        { ...Q, fetchSize: 500 },
      );
      for await (const row of rows) {
        published.push({
          number: big(row.block_number),
          hash: String(row.block_hash),
          records: decodeRecords(row.transfers as string),
        });
      }
      return { checkpoint, published };
    },

    async record(blocks) {
      if (blocks.length === 0) return;
      // one partition: an unlogged batch is a single atomic mutation
      await client.batch(
        blocks.map((b) => ({
          query:
            "INSERT INTO indexer_published (chain_id, block_number, block_hash, transfers) VALUES (?, ?, ?, ?)",
          params: [chainId, long(b.number), b.hash, encodeRecords(b.records)],
        })),
        { ...Q, logged: false },
      );
    },

    async remove(numbers) {
      if (numbers.length === 0) return;
      await client.batch(
        numbers.map((n) => ({
          query: "DELETE FROM indexer_published WHERE chain_id = ? AND block_number = ?",
          params: [chainId, long(n)],
        })),
        { ...Q, logged: false },
      );
    },

    async save(cp) {
      const params = [long(cp.number), cp.hash, new Date(), encodeRecent(cp.recent), chainId];
      if (cp.timestamp === null) {
        await client.execute(
          "UPDATE indexer_checkpoints SET block_number = ?, block_hash = ?, updated_at = ?, recent_blocks = ? WHERE chain_id = ?",
          params,
          Q,
        );
      } else {
        await client.execute(
          "UPDATE indexer_checkpoints SET block_number = ?, block_hash = ?, updated_at = ?, recent_blocks = ?, block_timestamp = ? WHERE chain_id = ?",
          [...params.slice(0, 4), new Date(Number(cp.timestamp) * 1000), chainId],
          Q,
        );
      }
    },

    // only called once a checkpoint exists, so it never creates a row without a position
    async touch() {
      await client.execute(
        "UPDATE indexer_checkpoints SET updated_at = ? WHERE chain_id = ?",
        [new Date(), chainId],
        Q,
      );
    },
  };
}

/** Every chain's indexer position, for /health. */
export async function readFreshness(client: CassandraClient): Promise<Freshness[]> {
  const rs = await client.execute(
    "SELECT chain_id, block_number, block_timestamp, updated_at FROM indexer_checkpoints",
    [],
    Q,
  );
  return rs.rows
    .map((r) => ({
      chainId: r.chain_id as number,
      lastBlock: r.block_number === null ? null : big(r.block_number),
      blockTimestamp: (r.block_timestamp as Date | null)?.getTime() ?? null,
      updatedAt: (r.updated_at as Date | null)?.getTime() ?? null,
    }))
    .sort((a, b) => a.chainId - b.chainId);
}

// recent_blocks: contiguous, so the numbers are implied by the first one.
/**
 * The recent blocks as stored: `first` and the hashes, each block one past the last, as on an EVM
 * chain. A chain whose blocks skip numbers (a Solana slot with no block) also stores `numbers`:
 * numbering such a list from `first` read a slot's hash back as another's, and the indexer then
 * took its own history for a fork deeper than it keeps, and stopped. A row written before `numbers`
 * existed is read as before.
 */
const recentSchema = z.object({
  first: z.string().regex(/^\d+$/),
  hashes: z.array(z.string()),
  numbers: z.array(z.string().regex(/^\d+$/)).optional(),
});

export function encodeRecent(recent: readonly BlockRef[]): string {
  const first = recent[0]?.number ?? 0n;
  const contiguous = recent.every((b, i) => b.number === first + BigInt(i));
  return JSON.stringify({
    first: String(first),
    hashes: recent.map((b) => b.hash),
    ...(contiguous ? {} : { numbers: recent.map((b) => String(b.number)) }),
  });
}

export function decodeRecent(text: string | null): BlockRef[] {
  if (!text) return [];
  const { first, hashes, numbers } = recentSchema.parse(JSON.parse(text));
  if (numbers !== undefined && numbers.length === hashes.length)
    return hashes.map((hash, i) => ({ number: BigInt(numbers[i] as string), hash }));
  return hashes.map((hash, i) => ({ number: BigInt(first) + BigInt(i), hash }));
}

// Any family's spelling (the record contract's check): the rows were canonicalised by the adapter.
const id = z.string().refine(isChainHash, "must be 0x hex or base58");
const address = z.string().refine(isChainAddress, "must be a 0x address or a base58 address");
const uint = z
  .string()
  .regex(/^\d+$/)
  .transform((v) => BigInt(v));

const storedRecord = z.object({
  sessionId: z.string(),
  burner: address,
  chainId: z.number().int(),
  token: address,
  amount: uint,
  txHash: id,
  logIndex: z.number().int(),
  blockNumber: uint,
  blockHash: id,
  from: address,
  confirmations: z.number().int(),
  observedAt: z.number(),
  retracted: z.boolean(),
  // Rows recorded before the indexer attached the operator's terms have none: such records count as accepted.
  terms: z.object({ accepted: z.boolean(), minAmount: uint }).nullable().default(null),
  // Rows recorded before finality was tracked were published at a final depth.
  finality: z.enum(FINALITIES).nullable().default(null),
});

/** JSON of records with bigints as decimal strings; decodeRecords(encodeRecords(x)) deep-equals x. */
export function encodeRecords(records: readonly TransferObserved[]): string {
  return JSON.stringify(records, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
}

export function decodeRecords(text: string): TransferObserved[] {
  return z.array(storedRecord).parse(JSON.parse(text));
}
