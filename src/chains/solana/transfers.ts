import { getAssociatedTokenAddressSync, TOKEN_PROGRAM_ID } from "@solana/spl-token";
import { type Connection, PublicKey } from "@solana/web3.js";
import type { ChainAddress } from "../../domain/types.ts";
import { mapConcurrent } from "../../support/map-concurrent.ts";
import type { FoundTransfer, TransferFinder } from "../adapter.ts";
import { fetchBlock, type SolanaBlock, type SolanaTx } from "./block-source.ts";
import { SOL_TOKEN } from "./config.ts";

/**
 * Finds deposits into watched burners in Solana blocks, from the balances a transaction's metadata
 * carries (no instruction decoding, so a transfer made by any program, or inside a CPI, counts):
 * - SOL: the burner's own lamports went up (logIndex -1: one per transaction, as for EVM's coin);
 * - a token: the burner's associated token account for the mint (by the balance's owner, mint and
 *   token program) went up (logIndex: that account's index in the transaction's account keys).
 * `from` is the account (the token account's owner) whose balance went down most, else the fee payer.
 */

const BACKFILL_CONCURRENCY = 8;

export function solanaTransferFinder(connection: Connection, chainId: number): TransferFinder<SolanaBlock> {
  return {
    inBlocks: async (blocks, isWatched) =>
      blocks.flatMap((block) =>
        block.transactions.flatMap((tx) => depositsIn(chainId, block, tx, isWatched)),
      ),
    async toAddresses({ addresses, from, to, expectedHash }) {
      if (to < from || addresses.size === 0) return [];
      const slots = await connection.getBlocks(Number(from), Number(to), "confirmed");
      const blocks = await mapConcurrent(slots, BACKFILL_CONCURRENCY, (slot) => fetchBlock(connection, slot));
      const found: FoundTransfer[] = [];
      for (const block of blocks) {
        if (!block) continue;
        // Another branch than the one handed out: the main scan is about to see the fork.
        const want = expectedHash(block.number);
        if (want !== undefined && want !== block.hash) continue;
        for (const tx of block.transactions)
          found.push(...depositsIn(chainId, block, tx, (a) => addresses.has(a)));
      }
      return found;
    },
  };
}

/** The deposits one successful transaction made into watched burners. */
export function depositsIn(
  chainId: number,
  block: Pick<SolanaBlock, "number" | "hash">,
  tx: SolanaTx,
  isWatched: (address: ChainAddress) => boolean,
): FoundTransfer[] {
  const { accountKeys, meta } = tx;
  const base = { chainId, txHash: tx.signature, blockNumber: block.number, blockHash: block.hash };
  const found: FoundTransfer[] = [];
  const payer = accountKeys[0] ?? "";

  accountKeys.forEach((key, i) => {
    if (!isWatched(key)) return;
    const gained = BigInt(meta.postBalances[i] ?? 0) - BigInt(meta.preBalances[i] ?? 0);
    if (gained <= 0n) return;
    const drops = accountKeys.map((k, j) => ({
      key: k,
      drop: j === i ? 0n : BigInt(meta.preBalances[j] ?? 0) - BigInt(meta.postBalances[j] ?? 0),
    }));
    found.push({
      ...base,
      token: SOL_TOKEN,
      amount: gained,
      logIndex: -1,
      from: largestDrop(drops) ?? payer,
      to: key,
    });
  });

  const pre = new Map((meta.preTokenBalances ?? []).map((b) => [b.accountIndex, b]));
  const post = meta.postTokenBalances ?? [];
  for (const balance of post) {
    const owner = balance.owner;
    if (!owner || !isWatched(owner)) continue;
    const account = accountKeys[balance.accountIndex];
    const program = new PublicKey(balance.programId ?? TOKEN_PROGRAM_ID);
    // Only the burner's associated token account: where a sweep looks for the money.
    const ata = getAssociatedTokenAddressSync(
      new PublicKey(balance.mint),
      new PublicKey(owner),
      true,
      program,
    );
    if (account !== ata.toBase58()) continue;
    const gained =
      BigInt(balance.uiTokenAmount.amount) -
      BigInt(pre.get(balance.accountIndex)?.uiTokenAmount.amount ?? "0");
    if (gained <= 0n) continue;
    const drops = post
      .filter((b) => b.mint === balance.mint && b.accountIndex !== balance.accountIndex)
      .map((b) => ({
        key: b.owner ?? "",
        drop: BigInt(pre.get(b.accountIndex)?.uiTokenAmount.amount ?? "0") - BigInt(b.uiTokenAmount.amount),
      }));
    found.push({
      ...base,
      token: balance.mint,
      amount: gained,
      logIndex: balance.accountIndex,
      from: largestDrop(drops) ?? payer,
      to: owner,
    });
  }
  return found;
}

/** The key whose balance fell most, if any fell. */
function largestDrop(drops: ReadonlyArray<{ key: string; drop: bigint }>): string | undefined {
  let best: { key: string; drop: bigint } | undefined;
  for (const d of drops) if (d.drop > 0n && d.key && (!best || d.drop > best.drop)) best = d;
  return best?.key;
}
