import { assertNever } from "../domain/evolve.ts";
import { type ChainAddress, type DepositTerms, type Finality, transferKey } from "../domain/types.ts";
import type { TransferObserved } from "../records/chain-transfers.ts";
import { type Checkpoint, createCheckpointStore, type PublishedBlock } from "../store/indexer-checkpoints.ts";
import { isTerminal } from "../support/errors.ts";
import { type RetryContext, retry } from "../support/retry.ts";
import {
  type BlockInput,
  type BlockRef,
  type BlockSource,
  type ChainBlock,
  type ChainIndexer,
  type ChainIndexerDeps,
  type ChainInput,
  type FoundTransfer,
  REMEMBERED_BLOCKS,
  type ReorgInput,
  type TransferFinder,
} from "./adapter.ts";
import { createWatchlist, type WatchEntry, type Watchlist } from "./watchlist.ts";

/**
 * One chain's indexer, whatever its family: chain input from the family's block source -> the
 * family's transfer finder -> TransferObserved records. Per step of blocks it records what it will
 * publish (indexer_published), publishes, then advances the checkpoint: at-least-once, and a record
 * published twice (crash before the checkpoint) is the same record, which the session actor drops by
 * (chainId, txHash, logIndex). Steps and backfills run one at a time (the lane), so a backfill always
 * sees a settled checkpoint. Details in docs/INDEXER.md.
 */

export interface IndexerDeps<B extends ChainBlock> extends ChainIndexerDeps {
  chainId: number;
  /** Depth at which the source hands blocks out; a backfill's head estimate when none was seen yet. */
  confirmations: number;
  /** Opens the family's block source after `resume`, the blocks already handed out (oldest first). */
  openSource: (resume: readonly BlockRef[]) => BlockSource<B>;
  finder: TransferFinder<B>;
  /** The family's canonical spelling of a burner, or null when it is none of this chain's. */
  parseAddress: (raw: string) => ChainAddress | null;
  /**
   * The operator's terms for a token on this chain (its CHAINS entry's accepted tokens), attached to
   * every record: the indexer publishes every transfer into a burner, and the session's pure decider
   * tells a payment from an unsupported deposit with them (src/domain/acceptance.ts). The terms
   * travel on the record rather than being read by the actors, so the decider stays free of
   * configuration and the record says what the operator accepted when the transfer was seen.
   */
  termsOf: (token: ChainAddress) => DepositTerms;
  /** Confirmed blocks a newly watched burner is backfilled over (default 128). */
  backfillBlocks?: number;
  /**
   * The chain's finalized height, for a family whose confirmation depth is not final (Solana: the
   * source hands out `confirmed` slots). Given, every record is published at "confirmed" (or at
   * "finalized" if its block already is) and published again as "finalized" once its block is at or
   * below this height; the decider settles only final deposits (src/domain/finality.ts). Absent
   * (EVM), records carry finality null: the confirmation depth is final.
   */
  finalizedHeight?: () => Promise<bigint>;
}

export interface Indexer extends ChainIndexer {
  watchlist: Watchlist;
}

/** How often a caught-up indexer refreshes updated_at (freshness) while the chain is quiet. */
const HEARTBEAT_MS = 5_000;
const RETRY_MIN_MS = 500;
const RETRY_MAX_MS = 30_000;

export function createIndexer<B extends ChainBlock>(deps: IndexerDeps<B>): Indexer {
  const { chainId, finder, signal, log } = deps;
  const backfillBlocks = BigInt(deps.backfillBlocks ?? 128);
  const store = createCheckpointStore(deps.cassandra, chainId);
  const lane = createLane();

  // Mirror of the durable state, reloaded from Cassandra on every (re)start.
  let loaded = false;
  let checkpoint: Checkpoint | null = null;
  let published = new Map<bigint, PublishedBlock>();
  let lastHead: bigint | null = null;
  let lastBlockAt: number | null = null;
  let lastTouch = 0;
  // Burners added before the very first checkpoint: backfilled once there is one.
  const deferred: WatchEntry[] = [];

  const watchlist = createWatchlist({
    chainId,
    cassandra: deps.cassandra,
    parseAddress: deps.parseAddress,
    position: () => checkpoint?.number ?? null,
    backfill: (entries) => lane.run(() => backfill(entries)),
  });

  async function reload(): Promise<void> {
    const state = await store.load();
    checkpoint = state.checkpoint;
    published = new Map(state.published.map((p) => [p.number, p]));
    loaded = true;
  }

  /** Finality of a record of block `number`, given the finalized height read for this step (null: EVM). */
  const finalityAt = (number: bigint, finalized: bigint | null): Finality =>
    finalized === null ? null : number <= finalized ? "finalized" : "confirmed";
  const finalizedNow = async (): Promise<bigint | null> =>
    deps.finalizedHeight ? await deps.finalizedHeight() : null;
  const awaitsFinality = (row: PublishedBlock): boolean =>
    row.records.some((r) => r.finality === "confirmed" && !r.retracted);

  const observe = (
    t: FoundTransfer,
    sessionId: string,
    head: bigint,
    now: number,
    finalized: bigint | null,
  ): TransferObserved => ({
    sessionId,
    burner: t.to,
    chainId,
    token: t.token,
    amount: t.amount,
    txHash: t.txHash,
    logIndex: t.logIndex,
    blockNumber: t.blockNumber,
    blockHash: t.blockHash,
    from: t.from,
    confirmations: Number(head - t.blockNumber),
    observedAt: now,
    retracted: false,
    terms: deps.termsOf(t.token),
    finality: finalityAt(t.blockNumber, finalized),
  });

  const retract = (records: readonly TransferObserved[], now: number): TransferObserved[] =>
    records.map((r) => ({ ...r, observedAt: now, retracted: true }));

  async function save(cp: Checkpoint): Promise<void> {
    await store.save(cp);
    checkpoint = cp;
    lastBlockAt = lastTouch = Date.now();
  }

  async function applyBlocks(run: ReadonlyArray<BlockInput<B>>): Promise<void> {
    const last = run.at(-1);
    if (!last) return;
    // Nothing watched, nothing to find: the scan is skipped.
    const found =
      watchlist.size() > 0 ? await finder.inBlocks(run, (a) => watchlist.get(a) !== undefined) : [];
    const finalized = found.length > 0 ? await finalizedNow() : null;
    const now = Date.now();
    const rows: PublishedBlock[] = [];
    const stale: bigint[] = [];
    const outgoing: TransferObserved[] = [];
    for (const block of run) {
      const prior = published.get(block.number);
      let records: TransferObserved[] = [];
      if (prior && prior.hash !== block.hash) {
        // Recorded before a crash, then reorged out while we were down. The retraction goes first:
        // the actor ignores a second observation of a known transfer, so order decides the outcome.
        outgoing.push(...retract(prior.records, now));
        stale.push(prior.number);
      } else if (prior) {
        records = [...prior.records]; // recorded before a crash: publish the very same records again
        outgoing.push(...records);
      }
      const known = new Set(records.map(transferKey));
      for (const t of found) {
        const entry = watchlist.get(t.to);
        if (t.blockNumber !== block.number || !entry || known.has(transferKey(t))) continue;
        const record = observe(t, entry.sessionId, block.head, now, finalized);
        records.push(record);
        outgoing.push(record);
      }
      if (records.length > 0) rows.push({ number: block.number, hash: block.hash, records });
    }
    await store.record(rows);
    for (const row of rows) published.set(row.number, row);
    if (outgoing.length > 0) await deps.publish(outgoing);
    const gone = stale.filter((n) => !rows.some((r) => r.number === n));
    await store.remove(gone);
    for (const n of gone) published.delete(n);

    lastHead = last.head;
    const recent = [...(checkpoint?.recent ?? []), ...run.map(ref)].slice(-REMEMBERED_BLOCKS);
    await save({ ...ref(last), timestamp: last.timestamp, recent });
    if (outgoing.length > 0)
      log("published transfers", { chainId, block: String(last.number), count: outgoing.length });
    await prune(recent[0]?.number ?? 0n);
    if (deferred.length > 0) await backfill(deferred.splice(0));
  }

  async function applyReorg(reorg: ReorgInput): Promise<void> {
    const ancestor = reorg.commonAncestor;
    // Every row above the ancestor is off the canonical chain, including rows recorded above the
    // checkpoint before a crash.
    const gone = [...published.values()].filter((p) => p.number > ancestor.number);
    gone.sort((a, b) => (a.number < b.number ? -1 : 1));
    const retractions = gone.flatMap((p) => retract(p.records, Date.now()));
    log("reorg", {
      chainId,
      ancestor: String(ancestor.number),
      dropped: reorg.dropped.length,
      retracted: retractions.length,
    });
    // Retract before forgetting: a crash in between re-detects the reorg and retracts again.
    if (retractions.length > 0) await deps.publish(retractions);
    await store.remove(gone.map((p) => p.number));
    for (const p of gone) published.delete(p.number);
    const kept = (checkpoint?.recent ?? []).filter((b) => b.number <= ancestor.number);
    const recent = kept.at(-1)?.hash === ancestor.hash ? kept : [ref(ancestor)];
    await save({ ...ref(ancestor), timestamp: null, recent });
  }

  /**
   * Publishes again, as "finalized", the records of every published block now at or below the
   * finalized height, then records the rows so: a crash in between publishes them again, which the
   * session actor takes as a retry (the deposit is final already).
   */
  async function finalize(): Promise<void> {
    if (!deps.finalizedHeight || ![...published.values()].some(awaitsFinality)) return;
    const finalized = await deps.finalizedHeight();
    const now = Date.now();
    const rows: PublishedBlock[] = [];
    const outgoing: TransferObserved[] = [];
    for (const row of published.values()) {
      if (row.number > finalized || !awaitsFinality(row)) continue;
      const records = row.records.map((r) => {
        if (r.finality !== "confirmed" || r.retracted) return r;
        const final: TransferObserved = { ...r, finality: "finalized", observedAt: now };
        outgoing.push(final);
        return final;
      });
      rows.push({ ...row, records });
    }
    if (outgoing.length === 0) return;
    await deps.publish(outgoing);
    await store.record(rows);
    for (const row of rows) published.set(row.number, row);
    log("published finalized transfers", { chainId, finalized: String(finalized), count: outgoing.length });
  }

  /**
   * Rows older than the reorg window can no longer be retracted: drop them, unless their records
   * still await finality (finalize() needs them; the finality lag is far inside the window).
   */
  async function prune(oldestKept: bigint): Promise<void> {
    const old = [...published.entries()]
      .filter(([n, row]) => n < oldestKept && !awaitsFinality(row))
      .map(([n]) => n);
    await store.remove(old);
    for (const n of old) published.delete(n);
  }

  /** One scan of the recent confirmed blocks for a whole batch of newly watched burners. */
  async function backfill(entries: readonly WatchEntry[]): Promise<void> {
    if (entries.length === 0) return;
    if (!loaded) await reload();
    const cp = checkpoint;
    if (!cp) {
      deferred.push(...entries);
      return;
    }
    const sessionOf = new Map(entries.map((e) => [e.burner, e.sessionId]));
    const from = cp.number - backfillBlocks + 1n;
    const hashes = new Map(cp.recent.map((b) => [b.number, b.hash]));
    const found = await finder.toAddresses({
      addresses: new Set(sessionOf.keys()),
      from: from < 0n ? 0n : from,
      to: cp.number,
      expectedHash: (n) => hashes.get(n),
    });
    const head = lastHead ?? cp.number + BigInt(deps.confirmations);
    const finalized = found.length > 0 ? await finalizedNow() : null;
    const now = Date.now();
    const changed = new Map<bigint, PublishedBlock>();
    const outgoing: TransferObserved[] = [];
    for (const t of found) {
      const row = changed.get(t.blockNumber) ?? published.get(t.blockNumber);
      // already published by the scan (the burner was watched in time), or a row of another branch
      if (row && (row.hash !== t.blockHash || row.records.some((r) => transferKey(r) === transferKey(t))))
        continue;
      const sessionId = sessionOf.get(t.to);
      if (sessionId === undefined) continue;
      const record = observe(t, sessionId, head, now, finalized);
      changed.set(t.blockNumber, {
        number: t.blockNumber,
        hash: t.blockHash,
        records: [...(row?.records ?? []), record],
      });
      outgoing.push(record);
    }
    await store.record([...changed.values()]);
    for (const row of changed.values()) published.set(row.number, row);
    if (outgoing.length > 0) await deps.publish(outgoing);
    log("backfilled burners", {
      chainId,
      burners: entries.length,
      to: String(cp.number),
      found: outgoing.length,
    });
  }

  async function apply(step: readonly ChainInput<B>[]): Promise<void> {
    let run: Array<BlockInput<B>> = [];
    for (const input of step) {
      switch (input.kind) {
        case "block":
          run.push(input);
          break;
        case "reorg":
          await applyBlocks(run);
          run = [];
          await applyReorg(input);
          break;
        default:
          assertNever(input);
      }
    }
    await applyBlocks(run);
  }

  /** Nothing new is confirmed: the indexer is caught up, which is what freshness reports. */
  async function heartbeat(): Promise<void> {
    if (!checkpoint) return;
    lastBlockAt = Date.now();
    if (lastBlockAt - lastTouch < HEARTBEAT_MS) return;
    await store.touch();
    lastTouch = lastBlockAt;
  }

  /** From the checkpoint until the signal aborts; each failure restarts here, so state stays consistent. */
  async function follow(context: RetryContext): Promise<void> {
    await watchlist.load();
    await lane.run(reload);
    const source = deps.openSource(checkpoint?.recent ?? []);
    log("indexer following", {
      chainId,
      from: checkpoint ? String(checkpoint.number) : "confirmed head",
    });
    while (!signal.aborted) {
      const step = await source.next();
      await lane.run(async () => {
        await (step.length > 0 ? apply(step) : heartbeat());
        await finalize();
      });
      context.reset(); // a later failure is a new incident: it waits RETRY_MIN_MS again
    }
  }

  async function run(): Promise<void> {
    try {
      // Any failure but a terminal one is retried forever: an RPC error of unknown kind is most
      // likely the node or the network, and the durable state is consistent whatever failed.
      await retry(follow, {
        attempts: Number.POSITIVE_INFINITY,
        baseMs: RETRY_MIN_MS,
        maxMs: RETRY_MAX_MS,
        signal,
        isRetryable: (err) => !isTerminal(err),
        onRetry: (err, { delayMs }) =>
          log("indexer step failed; resuming from the checkpoint", {
            chainId,
            error: String(err),
            waitMs: delayMs,
          }),
      });
    } catch (err) {
      if (!signal.aborted) throw err;
    }
    await lane.run(async () => {}); // let an in-flight step or backfill finish
    log("indexer stopped", { chainId });
  }

  return {
    watchlist,
    async watch(burners) {
      // Every chain is offered every burner (the payer may deposit on any chain); one of another
      // family is not this chain's to watch.
      const ours = burners.filter((b) => deps.parseAddress(b.burner) !== null);
      const results = await watchlist.addMany(ours);
      return results.map(({ outcome, entry }) => ({ outcome, burner: entry.burner, owner: entry.sessionId }));
    },
    run,
    status: () => ({ chainId, lastBlock: checkpoint?.number ?? null, lastBlockAt }),
  };
}

const ref = (b: BlockRef): BlockRef => ({ number: b.number, hash: b.hash });

/** Runs tasks one at a time, in call order; a failed task does not block the ones after it. */
function createLane() {
  let tail: Promise<unknown> = Promise.resolve();
  return {
    run<T>(task: () => Promise<T>): Promise<T> {
      const result = tail.then(task);
      tail = result.catch(() => {});
      return result;
    },
  };
}
