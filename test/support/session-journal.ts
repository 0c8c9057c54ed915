import type { SessionEvent } from "../../src/domain/events.ts";
import type { ReadRecord } from "../../src/kafka/topic-reader.ts";
import { codecs } from "./codecs.ts";
import { generator } from "./generate.ts";

// A SessionEvent journal for replay tests: generated sessions spread over partitions, their records
// interleaved as concurrent sessions' are, some delivered twice, some sessions ending.

/**
 * One session's events as the actor host writes them: created, then deposits, some retracted; some
 * sessions expire, and some of those get a late deposit after expiring (a terminal status is not
 * the end of a session's events).
 */
export function sessionEvents(seed: number, id: string, ends: "open" | "expire" | "late"): SessionEvent[] {
  const g = generator(seed);
  let version = 0;
  const meta = () => ({
    sessionId: id,
    version: ++version,
    occurredAt: 1_750_000_000_000 + version,
    commandId: g.uuid(),
  });
  const events: SessionEvent[] = [
    {
      type: "SessionCreated",
      data: g.creation(),
      metadata: meta(),
    },
  ];
  const deposit = () => {
    const transfer = g.transfer();
    events.push({ type: "DepositObserved", data: { transfer, finality: null }, metadata: meta() });
    if (g.int(0, 3) === 0) {
      const { chainId, txHash, logIndex } = transfer;
      events.push({ type: "DepositRetracted", data: { chainId, txHash, logIndex }, metadata: meta() });
    }
  };
  for (let i = g.int(0, 6); i > 0; i--) deposit();
  if (ends !== "open") events.push({ type: "SessionExpired", data: {}, metadata: meta() });
  if (ends === "late") deposit();
  return events;
}

export interface Journal {
  /** Each partition's records in offset order. */
  partitions: Map<number, ReadRecord[]>;
  sessions: Map<string, SessionEvent[]>;
  duplicates: number;
}

/**
 * `count` sessions over `partitions` partitions (a session in one), their records interleaved
 * within groups of `interleave` sessions (as concurrent sessions are), some records delivered twice.
 */
export function journalOf(opts: {
  count: number;
  partitions: number;
  interleave: number;
  ends: (i: number) => "open" | "expire" | "late";
}): Journal {
  const g = generator(opts.count);
  const sessions = new Map<string, SessionEvent[]>();
  const partitions = new Map<number, ReadRecord[]>();
  for (let p = 0; p < opts.partitions; p++) partitions.set(p, []);
  let duplicates = 0;
  for (let start = 0; start < opts.count; start += opts.interleave) {
    const cursors: Array<{ id: string; events: SessionEvent[]; next: number; partition: number }> = [];
    for (let i = start; i < Math.min(opts.count, start + opts.interleave); i++) {
      const id = g.uuid();
      const events = sessionEvents(1000 + i, id, opts.ends(i));
      sessions.set(id, events);
      cursors.push({ id, events, next: 0, partition: i % opts.partitions });
    }
    while (cursors.some((c) => c.next < c.events.length)) {
      const c = g.pick(cursors.filter((x) => x.next < x.events.length));
      const event = c.events[c.next++] as SessionEvent;
      const copies = g.int(0, 9) === 0 ? 2 : 1; // a redelivered record sits right after the first
      duplicates += copies - 1;
      const records = partitions.get(c.partition) as ReadRecord[];
      for (let k = 0; k < copies; k++) {
        records.push({
          partition: c.partition,
          offset: BigInt(records.length),
          key: Buffer.from(c.id),
          value: codecs.sessionEvent.encode(event),
        });
      }
    }
  }
  return { partitions, sessions, duplicates };
}
