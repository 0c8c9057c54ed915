import { z } from "zod";
import type { ChainAddress } from "../domain/types.ts";
import type { CassandraClient } from "../store/cassandra.ts";
import { type WatchedBurnerRow, watchedBurnersTable } from "../store/watched-burners.ts";
import { BaseError } from "../support/errors.ts";
import { mapConcurrent } from "../support/map-concurrent.ts";
import type { WatchOutcome } from "./adapter.ts";

/**
 * The burners one chain's indexer watches, persisted in `watched_burners` and held in memory for
 * the scan. A burner is client-generated, so two sessions can name the same one. The first
 * registration wins, atomically (a lightweight transaction), and later ones are refused: letting a
 * later session take over would let anyone who learns a burner (its authorization is public once a
 * sweep is broadcast) redirect the deposits of the session that owns it. Deposits follow the
 * session that registered first; a refused session sees `conflict` and gets nothing attributed.
 */

/** A watched burner: its `watched_burners` row (burner in the family's canonical spelling). */
export type WatchEntry = WatchedBurnerRow;

export interface Watchlist {
  /** Reads every watched burner of the chain into memory; returns how many. */
  load(): Promise<number>;
  /** Stores the burner, then backfills recent confirmed blocks for it; resolves when both are done. */
  add(burner: string, sessionId: string): Promise<{ outcome: WatchOutcome; entry: WatchEntry }>;
  /** The same for a batch, with ONE backfill scan for all of them (the burner feed's path). */
  addMany(
    pairs: ReadonlyArray<{ burner: string; sessionId: string }>,
  ): Promise<Array<{ outcome: WatchOutcome; entry: WatchEntry }>>;
  /** By the family's canonical spelling (what the transfer finder reports). */
  get(burner: ChainAddress): WatchEntry | undefined;
  size(): number;
}

export interface WatchlistDeps {
  chainId: number;
  cassandra: CassandraClient;
  /** The chain family's canonical spelling of an address, or null (the adapter's parseAddress). */
  parseAddress: (raw: string) => ChainAddress | null;
  /** The indexer's checkpoint block, or null before its first one. */
  position: () => bigint | null;
  /** Finds and publishes transfers to newly watched burners in blocks already scanned. */
  backfill: (entries: readonly WatchEntry[]) => Promise<void>;
}

const sessionIdSchema = z.uuid();

/** A burner that is no address of this chain's family: the caller offered it to the wrong chain. */
export class NotAChainAddressError extends BaseError {
  override name = "NotAChainAddressError";
  readonly code = "not_a_chain_address";
  readonly retryable = false;
}

export function createWatchlist(deps: WatchlistDeps): Watchlist {
  const table = watchedBurnersTable(deps.cassandra, deps.chainId);
  // Rows hold burners this watchlist wrote, canonicalised on the way in.
  const entries = new Map<ChainAddress, WatchEntry>();
  const parseBurner = (raw: string): ChainAddress => {
    const burner = deps.parseAddress(raw);
    if (burner === null)
      throw new NotAChainAddressError(
        `burner ${JSON.stringify(raw)} is not an address of chain ${deps.chainId}`,
      );
    return burner;
  };

  const addMany: Watchlist["addMany"] = async (pairs) => {
    const sinceBlock = deps.position() ?? 0n;
    // Bounded: a feed catching up hands over thousands of burners at once; each insert is an LWT.
    const results = await mapConcurrent(pairs, 16, async (pair) => {
      const burner = parseBurner(pair.burner);
      const sessionId = sessionIdSchema.parse(pair.sessionId).toLowerCase();
      const { applied, row: entry } = await table.insertIfAbsent({ burner, sessionId, sinceBlock });
      entries.set(burner, entry);
      const outcome: WatchOutcome =
        entry.sessionId !== sessionId ? "conflict" : applied ? "added" : "already_watched";
      return { outcome, entry };
    });
    // Re-adding from the same session backfills again (harmless), so a retry after a crash completes it.
    await deps.backfill(results.filter((r) => r.outcome !== "conflict").map((r) => r.entry));
    return results;
  };

  return {
    async load() {
      for await (const entry of table.all()) entries.set(entry.burner, entry);
      return entries.size;
    },

    async add(burner, sessionId) {
      const [result] = await addMany([{ burner, sessionId }]);
      if (!result) throw new Error("addMany returned nothing");
      return result;
    },

    addMany,

    get: (burner) => entries.get(burner),
    size: () => entries.size,
  };
}
