import { isApplied } from "../domain/decider.ts";
import type { SessionEvent } from "../domain/events.ts";
import { evolveInPlace } from "../domain/evolve.ts";
import { sessionDecider } from "../domain/session-decider.ts";
import type { Session, SessionStatus } from "../domain/types.ts";
import type { Codec } from "../kafka/codecs.ts";
import type { ReadRecord } from "../kafka/topic-reader.ts";

/**
 * The statuses after which a session is done in the normal course (src/domain/settlement.ts calls
 * them closed): a replay writes such a session out at once instead of holding it. Not final: a late
 * deposit, a refund or a stealth announcement may still follow, and the fold then takes the session
 * back (JournalFold's "reopen").
 */
export const TERMINAL: ReadonlySet<SessionStatus> = new Set<SessionStatus>([
  "swept",
  "failed",
  "expired",
  "bounced",
]);

/**
 * Where a replay's states go. A session may be written more than once (held past the bound, then
 * more events): a later write replaces the earlier one, the higher version winning.
 */
export interface StateSink {
  write(states: Session[]): Promise<void> | void;
  /**
   * The states last written for these sessions (a session never written is absent), so the fold can
   * go on from them. A sink that keeps nothing it could give back (a summary) leaves it out: the
   * fold then re-reads the session's partition for it at the end (JournalFold.finish).
   */
  load?(ids: string[]): Promise<Map<string, Session>>;
  /** Takes back a state written earlier, for a sink that adds states up: the session is written again later. */
  retract?(state: Session): void;
}

/** Committed positions of a replay: each partition's offset before which the sink has everything. */
export interface PositionStore {
  commit(positions: Map<number, bigint>, finished: boolean): Promise<void>;
}

/** Reads one partition again from offset zero up to `until` (exclusive), for the sessions a summary sink could not give back. */
export type Reread = (
  partition: number,
  until: bigint,
  onBatch: (records: ReadRecord[]) => Promise<void> | void,
) => Promise<void>;

export interface JournalFoldOptions {
  /**
   * The most states held at once over all of this fold's partitions (split evenly between them).
   * Past it the partition's oldest held session is written out and dropped; a later event of it
   * takes it back from the sink.
   */
  maxOpen: number;
  /** Written states are handed to the sink this many at a time (one write in flight at once). */
  writeChunk?: number;
  positions?: PositionStore;
  /** How often positions are committed, at most (they are also committed at the end). */
  checkpointMs?: number;
  reread?: Reread;
}

interface Held {
  state: Session | null;
  /** Offset at or before this session's first record not yet written to the sink. */
  from: number;
  partition: number;
}

class PartitionFold {
  readonly held = new Map<string, Held>();
  /** `next` at the previous checkpoint. */
  checkpointed: number;
  /**
   * Sessions this fold could not take back (a sink without load): their first record that found no
   * state. Their further records are skipped and the session is folded again by finish().
   */
  readonly deferred = new Map<string, number>();
  constructor(
    readonly partition: number,
    /** Offset after the last record read. */
    public next: number,
    readonly until: number,
    /** The most states held; JournalFold.limit may lower it during the fold. */
    public bound: number,
  ) {
    this.checkpointed = next;
  }

  /** Offset before which every record is in the sink or in the outbox: what may be committed once the outbox is written. */
  watermark(): number {
    let low = this.next;
    for (const h of this.held.values()) if (h.from < low) low = h.from;
    return low;
  }
}

/** What a fold did: events applied, sessions started, states taken back, the most states held at once. */
export interface FoldCounts {
  events: number;
  sessions: number;
  reopened: number;
  deferred: number;
  peakHeld: number;
}

/**
 * Folds a SessionEvent journal as it streams, partition by partition (a session's events all live in
 * one partition, in order): one state per session seen, written to the sink once terminal, or once
 * the partition holds more than its share of `maxOpen` (the oldest first). Memory follows the
 * sessions open at once and the bound, never the journal's length.
 *
 * A session written out and seen again (late events after a terminal status, or held past the bound)
 * is taken back: from the outbox or the write in flight if it is still there, else from the sink
 * (`load`); a sink without load (a summary) gets the session refolded from offset zero at the end,
 * its earlier write retracted. So the sink ends with exactly the states of a full fold.
 *
 * Not safe for concurrent calls of apply(): a reader calls it batch after batch.
 */
export class JournalFold {
  private readonly parts = new Map<number, PartitionFold>();
  /** States written out, not yet handed to the sink. */
  private outbox = new Map<string, Held>();
  /** The chunk handed to the sink and not yet acknowledged. */
  private writing: Map<string, Held> | null = null;
  private inflight: Promise<void> = Promise.resolve();
  private readonly writeChunk: number;
  private readonly checkpointMs: number;
  private checkpointAt: number;
  private heldNow = 0;
  readonly counts: FoldCounts = { events: 0, sessions: 0, reopened: 0, deferred: 0, peakHeld: 0 };

  constructor(
    private readonly codec: Codec<SessionEvent>,
    private readonly sink: StateSink,
    /** Each partition's start (the next offset to read) and end (exclusive). */
    partitions: Map<number, { from: bigint; until: bigint }>,
    private readonly opts: JournalFoldOptions,
  ) {
    const bound = Math.max(1, Math.floor(opts.maxOpen / Math.max(1, partitions.size)));
    for (const [p, { from, until }] of partitions) {
      this.parts.set(p, new PartitionFold(p, Number(from), Number(until), bound));
    }
    this.writeChunk = opts.writeChunk ?? 2000;
    this.checkpointMs = opts.checkpointMs ?? 10_000;
    this.checkpointAt = Date.now() + this.checkpointMs;
  }

  /** States held now, over all partitions. */
  get held(): number {
    return this.heldNow;
  }

  /** One fetched batch of one partition, in offset order. */
  async apply(partition: number, records: ReadRecord[]): Promise<void> {
    const p = this.parts.get(partition);
    if (!p) throw new Error(`partition ${partition} is not part of this fold`);
    if (records.length === 0) return;
    const codec = this.codec;
    const counts = this.counts;
    // Positions at batch grain: one offset parsed per batch. A session first met in this batch
    // counts as unwritten from the batch's start, which only makes a committed position earlier.
    const batchFrom = Number((records[0] as ReadRecord).offset);
    for (const r of records) {
      if (!r.value) continue;
      const event: SessionEvent = codec.decodeTrusted(r.value);
      const id = event.metadata.sessionId;
      if (r.key?.toString() !== id) {
        throw new Error(
          r.key
            ? `journal record keyed ${r.key.toString()} holds an event of session ${id}`
            : `journal record ${partition}:${r.offset} has no key (the journal is keyed by session id)`,
        );
      }
      let h = p.held.get(id);
      let reopened = false;
      if (h === undefined) {
        if (p.deferred.has(id)) continue;
        if (event.metadata.version === 1 && !this.outbox.has(id) && !this.writing?.has(id)) {
          h = { state: null, from: batchFrom, partition };
          counts.sessions++;
        } else {
          h = await this.reopen(p, id, r, batchFrom);
          if (h === undefined) continue;
          reopened = true;
        }
        p.held.set(id, h);
        // The partition's oldest go first (the one just added is the newest).
        if (p.held.size > p.bound) this.evictOldest(p);
        if (++this.heldNow > counts.peakHeld) counts.peakHeld = this.heldNow;
      }
      if (isApplied(sessionDecider, h.state, event)) {
        // A redelivered record of a session written out as terminal: it goes back out unchanged.
        if (reopened && h.state && TERMINAL.has(h.state.status)) this.writeOut(p, id, h);
        continue;
      }
      // The fold holds the only reference to its state, so the event may change it in place.
      const state = evolveInPlace(h.state, event) as Session;
      h.state = state;
      counts.events++;
      if (TERMINAL.has(state.status)) this.writeOut(p, id, h);
    }
    p.next = Number((records[records.length - 1] as ReadRecord).offset) + 1;
    if (this.outbox.size >= this.writeChunk) await this.flush();
    if (this.opts.positions && Date.now() >= this.checkpointAt) await this.checkpoint();
  }

  /**
   * Holds at most `maxHeld` states from now on (split evenly between the partitions), writing out
   * the oldest of each partition at once: for a thread whose heap runs short (replay-worker.ts).
   * The bound only ever goes down; the result is the same, with more sessions taken back.
   */
  limit(maxHeld: number): void {
    const bound = Math.max(1, Math.floor(maxHeld / Math.max(1, this.parts.size)));
    for (const p of this.parts.values()) {
      if (bound >= p.bound) continue;
      p.bound = bound;
      this.evictOldest(p);
    }
  }

  /** Writes out the partition's oldest states (Map order: the first held) down to its bound. */
  private evictOldest(p: PartitionFold): void {
    for (const [id, h] of p.held) {
      if (p.held.size <= p.bound) return;
      this.writeOut(p, id, h);
    }
  }

  /** Where a partition's read got to, for batches holding no records (transaction markers). */
  advance(partition: number, next: bigint): void {
    const p = this.parts.get(partition);
    if (p && Number(next) > p.next) p.next = Number(next);
  }

  /**
   * Writes every state still held, folds again the sessions a summary sink could not give back,
   * waits for the sink and commits the ends as finished.
   */
  async finish(): Promise<FoldCounts> {
    for (const p of this.parts.values()) {
      for (const [id, h] of p.held) this.writeOut(p, id, h);
    }
    await this.flush();
    await this.inflight;
    for (const p of this.parts.values()) if (p.deferred.size > 0) await this.refold(p);
    if (this.opts.positions) {
      await this.opts.positions.commit(
        new Map([...this.parts.values()].map((p) => [p.partition, BigInt(Math.max(p.next, p.until))])),
        true,
      );
    }
    return this.counts;
  }

  private writeOut(p: PartitionFold, id: string, h: Held): void {
    p.held.delete(id);
    this.heldNow--;
    if (h.state) this.outbox.set(id, h);
  }

  /** Hands the outbox to the sink, after the write before it: one write in flight at a time. */
  private async flush(): Promise<void> {
    await this.inflight;
    this.writing = null;
    if (this.outbox.size === 0) return;
    const chunk = this.outbox;
    this.outbox = new Map();
    this.writing = chunk;
    const states: Session[] = [];
    for (const h of chunk.values()) states.push(h.state as Session);
    const written = Promise.resolve(this.sink.write(states));
    // Awaited by the next flush, checkpoint or finish; until then a failure must not count as unhandled.
    written.catch(() => {});
    this.inflight = written;
  }

  /**
   * Commits each partition's watermark once everything before it is in the sink. A session held
   * since before the previous checkpoint is written as it stands (and kept), so a long-open session
   * holds the committed position back by one checkpoint at most, not to its first record.
   */
  private async checkpoint(): Promise<void> {
    const standing: Session[] = [];
    for (const p of this.parts.values()) {
      for (const h of p.held.values()) {
        if (h.state && h.from < p.checkpointed) {
          standing.push(h.state);
          h.from = p.next;
        }
      }
      p.checkpointed = p.next;
    }
    const marks = new Map([...this.parts.values()].map((p) => [p.partition, BigInt(p.watermark())]));
    await this.flush();
    await this.inflight;
    if (standing.length > 0) {
      // Nothing folds until this returns, so the states are written as they are now. They stay
      // held and are written again later: a sink that adds states up takes this write back.
      await this.sink.write(standing);
      for (const s of standing) this.sink.retract?.(s);
    }
    await this.opts.positions?.commit(marks, false);
    this.checkpointAt = Date.now() + this.checkpointMs;
  }

  /** A session with no held state whose record is not its first: it was written out before. */
  private async reopen(
    p: PartitionFold,
    id: string,
    r: ReadRecord,
    batchFrom: number,
  ): Promise<Held | undefined> {
    this.counts.reopened++;
    const waiting = this.outbox.get(id);
    if (waiting) {
      // Not written yet: it keeps its place in the partition's watermark.
      this.outbox.delete(id);
      return waiting;
    }
    if (this.writing?.has(id)) {
      await this.inflight;
      const written = this.writing.get(id) as Held;
      this.writing.delete(id);
      // Written: its records so far are in the sink; a sink that adds states up takes it back.
      if (written.state) this.sink.retract?.(written.state);
      return { state: written.state, from: batchFrom, partition: p.partition };
    }
    if (!this.sink.load) {
      p.deferred.set(id, Number(r.offset));
      this.counts.deferred++;
      this.counts.reopened--;
      return undefined;
    }
    await this.inflight;
    const state = (await this.sink.load([id])).get(id);
    if (!state) {
      throw new Error(
        `journal record ${p.partition}:${r.offset} continues session ${id}, which has no earlier state (neither read nor in the sink)`,
      );
    }
    return { state, from: batchFrom, partition: p.partition };
  }

  /**
   * The sessions of one partition the sink could not give back, folded from offset zero, at most
   * a bound's worth per pass. Each one's state as it was written out (its records before the first
   * that found no state) is retracted, and its full state written.
   */
  private async refold(p: PartitionFold): Promise<void> {
    const reread = this.opts.reread;
    if (!reread) throw new Error(`partition ${p.partition}: sessions to fold again, and no way to re-read`);
    const all = [...p.deferred];
    for (let i = 0; i < all.length; i += p.bound) {
      const pass = new Map<string, { state: Session | null; orphanAt: number; retracted: boolean }>();
      for (const [id, orphanAt] of all.slice(i, i + p.bound)) {
        pass.set(id, { state: null, orphanAt, retracted: false });
      }
      await reread(p.partition, BigInt(p.until), (records) => {
        for (const r of records) {
          if (!r.value || !r.key) continue;
          const s = pass.get(r.key.toString());
          if (!s) continue;
          const offset = Number(r.offset);
          if (!s.retracted && offset >= s.orphanAt) {
            if (s.state) this.sink.retract?.(s.state);
            s.retracted = true;
          }
          const event: SessionEvent = this.codec.decodeTrusted(r.value);
          if (isApplied(sessionDecider, s.state, event)) continue;
          s.state = evolveInPlace(s.state, event) as Session;
          // Those before the first unapplied record were counted in the stream.
          if (s.retracted) this.counts.events++;
        }
      });
      const states: Session[] = [];
      for (const s of pass.values()) if (s.state) states.push(s.state);
      await this.sink.write(states);
    }
    p.deferred.clear();
  }
}
