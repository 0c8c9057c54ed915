import { describe, expect, it } from "vitest";
import { evolve } from "../../src/domain/evolve.ts";
import type { Session, SessionState } from "../../src/domain/types.ts";
import type { ReadRecord } from "../../src/kafka/topic-reader.ts";
import { summarize } from "../../src/projections/journal-fold.ts";
import { JournalFold, type StateSink } from "../../src/projections/journal-stream.ts";
import { CollectSink, SummarySink } from "../../src/projections/replay-sinks.ts";
import { codecs } from "../support/codecs.ts";
import { type Journal, journalOf } from "../support/session-journal.ts";

/** The states a full fold gives: every session's events through evolve, one after the other. */
function expectedStates(journal: Journal): Map<string, SessionState> {
  return new Map(
    [...journal.sessions].map(([id, events]) => [id, events.reduce(evolve, null as SessionState)]),
  );
}

/** Feeds a journal to a fold in batches of `batch` records, the partitions' batches interleaved. */
async function feed(
  fold: JournalFold,
  journal: Journal,
  batch: number,
  from: Map<number, bigint> = new Map(),
): Promise<void> {
  const cursors = [...journal.partitions].map(([p, records]) => ({
    p,
    records,
    at: Number(from.get(p) ?? 0n),
  }));
  while (cursors.some((c) => c.at < c.records.length)) {
    for (const c of cursors) {
      if (c.at >= c.records.length) continue;
      await fold.apply(c.p, c.records.slice(c.at, c.at + batch));
      c.at += batch;
    }
  }
}

function partitionsOf(journal: Journal, from: Map<number, bigint> = new Map()) {
  return new Map(
    [...journal.partitions].map(([p, records]) => [
      p,
      { from: from.get(p) ?? 0n, until: BigInt(records.length) },
    ]),
  );
}

const rereadFrom =
  (journal: Journal) =>
  async (partition: number, until: bigint, onBatch: (r: ReadRecord[]) => Promise<void> | void) => {
    const records = (journal.partitions.get(partition) as ReadRecord[]).slice(0, Number(until));
    for (let i = 0; i < records.length; i += 7) await onBatch(records.slice(i, i + 7));
  };

describe("a replay's streaming fold", () => {
  const mixed = (i: number) => (["open", "expire", "late", "expire"] as const)[i % 4] ?? "open";

  it("gives each session the state its events give through evolve, whatever the bound, counting a redelivered record once", async () => {
    const journal = journalOf({ count: 120, partitions: 3, interleave: 10, ends: mixed });
    expect(journal.duplicates).toBeGreaterThan(0);
    const expected = expectedStates(journal);
    const events = [...journal.sessions.values()].reduce((n, e) => n + e.length, 0);
    // 3 states over 3 partitions: one per partition, so nearly every record takes a session back.
    for (const maxOpen of [3, 12, 1000]) {
      for (const batch of [1, 5, 64]) {
        const sink = new CollectSink();
        const fold = new JournalFold(codecs.sessionEvent, sink, partitionsOf(journal), {
          maxOpen,
          writeChunk: 4,
        });
        await feed(fold, journal, batch);
        const counts = await fold.finish();
        expect(sink.states, `bound ${maxOpen}, batches of ${batch}`).toEqual(expected);
        expect(counts.events).toBe(events);
        expect(counts.sessions).toBe(journal.sessions.size);
        expect(counts.peakHeld).toBeLessThanOrEqual(maxOpen);
        if (maxOpen === 3) expect(counts.reopened).toBeGreaterThan(0);
      }
    }
  });

  it("adds up to the full fold's summary through a sink that keeps nothing, refolding the sessions it gave away too early", async () => {
    const journal = journalOf({ count: 90, partitions: 2, interleave: 15, ends: mixed });
    const expected = expectedStates(journal);
    const events = [...journal.sessions.values()].reduce((n, e) => n + e.length, 0);
    const full = summarize({ states: expected as Map<string, Session>, events });
    for (const maxOpen of [2, 8, 1000]) {
      const sink = new SummarySink();
      const fold = new JournalFold(codecs.sessionEvent, sink, partitionsOf(journal), {
        maxOpen,
        writeChunk: 3,
        reread: rereadFrom(journal),
      });
      await feed(fold, journal, 4);
      const counts = await fold.finish();
      expect({ ...sink.tally.summary(), events: counts.events }, `bound ${maxOpen}`).toEqual(full);
      if (maxOpen === 2) expect(counts.deferred).toBeGreaterThan(0);
    }
  });

  it("ends with the full fold's states when its bound is lowered half way (a thread short of heap)", async () => {
    const journal = journalOf({ count: 120, partitions: 3, interleave: 40, ends: mixed });
    const expected = expectedStates(journal);
    const sink = new CollectSink();
    const fold = new JournalFold(codecs.sessionEvent, sink, partitionsOf(journal), { maxOpen: 1000 });
    const records = [...journal.partitions].map(([p, r]) => ({ p, r, half: Math.floor(r.length / 2) }));
    for (const { p, r, half } of records) await fold.apply(p, r.slice(0, half));
    const before = fold.held;
    expect(before).toBeGreaterThan(6);
    fold.limit(6);
    expect(fold.held).toBeLessThanOrEqual(6);
    // The bound only goes down: a higher limit later leaves it where it is.
    fold.limit(1000);
    for (const { p, r, half } of records) {
      await fold.apply(p, r.slice(half));
      expect(fold.held).toBeLessThanOrEqual(6);
    }
    const counts = await fold.finish();
    expect(sink.states).toEqual(expected);
    expect(counts.reopened).toBeGreaterThan(0);
  });

  it("holds few states for a journal whose sessions end, however long", async () => {
    // 2,000 sessions, 40 open at a time, all expiring: at most about one group's worth is ever held.
    const journal = journalOf({ count: 2000, partitions: 2, interleave: 40, ends: () => "expire" });
    const sink = new SummarySink();
    const fold = new JournalFold(codecs.sessionEvent, sink, partitionsOf(journal), { maxOpen: 100_000 });
    await feed(fold, journal, 50);
    const counts = await fold.finish();
    expect(counts.sessions).toBe(2000);
    expect(counts.peakHeld).toBeLessThanOrEqual(40 + 2);
    // Only a redelivered record after a session's last takes it back (from the outbox).
    expect(counts.reopened).toBeLessThanOrEqual(journal.duplicates);
    expect(sink.tally.summary().byStatus.expired).toBe(2000);
  });

  it("commits a position only once the sink holds everything before it, and a fold resumed there ends with the full fold's states", async () => {
    const journal = journalOf({ count: 150, partitions: 2, interleave: 12, ends: mixed });
    const expected = expectedStates(journal);
    const sink = new CollectSink();
    const commits: Array<{ positions: Map<number, bigint>; finished: boolean }> = [];
    const stopAfter = 60;
    const fold = new JournalFold(codecs.sessionEvent, sink, partitionsOf(journal), {
      maxOpen: 20,
      writeChunk: 5,
      checkpointMs: 0,
      positions: {
        async commit(positions, finished) {
          // What the sink holds now must reflect every record before each position.
          for (const [p, next] of positions) {
            const before = new Map<string, SessionState>();
            for (const r of (journal.partitions.get(p) as ReadRecord[]).slice(0, Number(next))) {
              const event = codecs.sessionEvent.decode(r.value as Buffer);
              const id = event.metadata.sessionId;
              const s = before.get(id) ?? null;
              if (event.metadata.version > (s?.version ?? 0)) before.set(id, evolve(s, event));
            }
            for (const [id, state] of before) {
              expect(
                sink.states.get(id)?.version ?? 0,
                `session ${id} at ${p}:${next}`,
              ).toBeGreaterThanOrEqual(state?.version ?? 0);
            }
          }
          commits.push({ positions: new Map(positions), finished });
          if (commits.length === stopAfter) throw new Error("stopped half way");
        },
      },
    });
    await expect(feed(fold, journal, 6)).rejects.toThrow("stopped half way");
    // The last commit that landed before the stop (the one that threw did not).
    const resumeAt = (commits[stopAfter - 2] as (typeof commits)[number]).positions;
    expect([...resumeAt.values()].some((o) => o > 0n)).toBe(true);
    // A new fold, nothing in memory, the sink as the stopped replay left it.
    const resumed = new JournalFold(codecs.sessionEvent, sink, partitionsOf(journal, resumeAt), {
      maxOpen: 20,
      writeChunk: 5,
    });
    await feed(resumed, journal, 6, resumeAt);
    await resumed.finish();
    expect(sink.states).toEqual(expected);
  });

  it("refuses a record filed under another session's key", async () => {
    const journal = journalOf({ count: 3, partitions: 1, interleave: 3, ends: () => "open" });
    const records = journal.partitions.get(0) as ReadRecord[];
    const other = records.find((r) => r.key?.toString() !== records[0]?.key?.toString()) as ReadRecord;
    const bad = [{ ...(records[0] as ReadRecord), key: other.key }];
    const fold = new JournalFold(codecs.sessionEvent, new CollectSink() as StateSink, partitionsOf(journal), {
      maxOpen: 10,
    });
    await expect(fold.apply(0, bad)).rejects.toThrow(/holds an event of session/);
  });
});
