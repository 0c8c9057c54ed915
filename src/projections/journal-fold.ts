import type { SessionEvent } from "../domain/events.ts";
import { evolveInPlace } from "../domain/evolve.ts";
import { type Session, type SessionStatus, STATUSES } from "../domain/types.ts";
import type { KafkaClient } from "../kafka/client.ts";
import { sessionEventCodec } from "../kafka/codecs.ts";
import { readTopic } from "../kafka/topic-reader.ts";

export interface FoldedJournal {
  states: Map<string, Session>;
  /** Events applied (a duplicate of an applied version is skipped and not counted). */
  events: number;
}

/**
 * Folds the given partitions of a SessionEvent journal, from offset zero up to their last stable
 * offsets, into session states. The journal is written only by the actor host, whose encoder ran
 * every check before writing, so records are decoded without repeating them (decodeTrusted): on a
 * replay those checks cost more than the Avro decoding itself.
 */
export async function foldJournal(
  kafka: KafkaClient,
  opts: {
    topic: string;
    partitions: number[];
    /** Records read since the previous call (after every fetched batch). */
    onRead?: (records: number) => void;
    signal?: AbortSignal;
  },
): Promise<FoldedJournal> {
  const states = new Map<string, Session>();
  let events = 0;
  await readTopic(kafka, {
    topic: opts.topic,
    from: new Map(opts.partitions.map((p) => [p, 0n])),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onBatch: (records) => {
      for (const r of records) {
        if (!r.value) continue;
        const event: SessionEvent = sessionEventCodec.decodeTrusted(r.value);
        const id = event.metadata.sessionId;
        const before = states.get(id) ?? null;
        if (before && event.metadata.version <= before.version) continue;
        // The fold holds the only reference to its states, so the event may change them in place.
        const after = evolveInPlace(before, event);
        if (after) states.set(id, after);
        events++;
      }
      opts.onRead?.(records.length);
    },
  });
  return { states, events };
}

/**
 * What a set of states adds up to: small enough to send between threads, and enough to tell two
 * replays of one journal apart if they disagree (the benchmark compares its parallel replay with a
 * single-threaded one this way).
 */
export interface StatesSummary {
  sessions: number;
  events: number;
  deposits: number;
  /** The sum of every deposit's amount over all sessions, decimal. */
  depositedAmount: string;
  /** The sum of every session's version: the events each state reflects. */
  versions: number;
  byStatus: Record<SessionStatus, number>;
}

export function summarize(folded: FoldedJournal): StatesSummary {
  const byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<SessionStatus, number>;
  let deposits = 0;
  let amount = 0n;
  let versions = 0;
  for (const s of folded.states.values()) {
    byStatus[s.status]++;
    deposits += s.deposits.length;
    versions += s.version;
    for (const d of s.deposits) amount += d.amount;
  }
  return {
    sessions: folded.states.size,
    events: folded.events,
    deposits,
    depositedAmount: amount.toString(),
    versions,
    byStatus,
  };
}

export function addSummaries(a: StatesSummary, b: StatesSummary): StatesSummary {
  const byStatus = { ...a.byStatus };
  for (const s of STATUSES) byStatus[s] += b.byStatus[s];
  return {
    sessions: a.sessions + b.sessions,
    events: a.events + b.events,
    deposits: a.deposits + b.deposits,
    depositedAmount: (BigInt(a.depositedAmount) + BigInt(b.depositedAmount)).toString(),
    versions: a.versions + b.versions,
    byStatus,
  };
}
