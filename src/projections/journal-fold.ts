import { isApplied } from "../domain/decider.ts";
import type { SessionEvent } from "../domain/events.ts";
import { evolveInPlace } from "../domain/evolve.ts";
import { sessionDecider } from "../domain/session-decider.ts";
import { type Session, type SessionStatus, STATUSES } from "../domain/types.ts";
import type { KafkaClient } from "../kafka/client.ts";
import type { Codec } from "../kafka/codecs.ts";
import { collectJournal, type SessionJournal } from "./journal-collect.ts";

export interface FoldedJournal {
  states: Map<string, Session>;
  /** Events applied (a duplicate of an applied version is skipped and not counted). */
  events: number;
}

/**
 * Decodes and folds one session's records. The journal is written only by the actor host, whose
 * encoder ran every check before writing, so records are decoded without repeating them
 * (decodeTrusted): on a replay those checks cost more than the Avro decoding itself.
 */
export function foldSession(
  codec: Codec<SessionEvent>,
  journal: SessionJournal,
  id: string,
  refs: number[],
): { state: Session | null; events: number } {
  let state: Session | null = null;
  let events = 0;
  for (let i = 0; i < refs.length; i += 2) {
    const event: SessionEvent = codec.decodeTrusted(
      journal.arena.view(refs[i] as number, refs[i + 1] as number),
    );
    if (event.metadata.sessionId !== id) {
      throw new Error(`journal record keyed ${id} holds an event of session ${event.metadata.sessionId}`);
    }
    if (isApplied(sessionDecider, state, event)) continue;
    // The fold holds the only reference to its state, so the event may change it in place.
    state = evolveInPlace(state, event);
    events++;
  }
  return { state, events };
}

/** The second phase: each session of a collected journal, decoded and folded, one at a time. */
export function* foldedSessions(
  codec: Codec<SessionEvent>,
  journal: SessionJournal,
): Generator<{ id: string; state: Session | null; events: number }> {
  for (const [id, refs] of journal.sessions()) yield { id, ...foldSession(codec, journal, id, refs) };
}

/** Every session's state, folded from offset zero: both phases, the states kept in hand. */
export async function foldJournal(
  kafka: KafkaClient,
  codec: Codec<SessionEvent>,
  opts: Parameters<typeof collectJournal>[1],
): Promise<FoldedJournal> {
  const states = new Map<string, Session>();
  let events = 0;
  for (const folded of foldedSessions(codec, await collectJournal(kafka, opts))) {
    if (folded.state) states.set(folded.id, folded.state);
    events += folded.events;
  }
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

/** Adds states up one at a time, so a replay can summarize states it does not keep. */
export class StatesTally {
  private readonly byStatus = Object.fromEntries(STATUSES.map((s) => [s, 0])) as Record<
    SessionStatus,
    number
  >;
  private sessions = 0;
  private events = 0;
  private deposits = 0;
  private amount = 0n;
  private versions = 0;

  /** A session's folded state (null when its events formed none) and the events applied to it. */
  add(state: Session | null, events: number): void {
    this.events += events;
    if (!state) return;
    this.sessions++;
    this.byStatus[state.status]++;
    this.deposits += state.deposits.length;
    this.versions += state.version;
    for (const d of state.deposits) this.amount += d.amount;
  }

  summary(): StatesSummary {
    return {
      sessions: this.sessions,
      events: this.events,
      deposits: this.deposits,
      depositedAmount: this.amount.toString(),
      versions: this.versions,
      byStatus: { ...this.byStatus },
    };
  }
}

export function summarize(folded: FoldedJournal): StatesSummary {
  const tally = new StatesTally();
  for (const s of folded.states.values()) tally.add(s, 0);
  tally.add(null, folded.events);
  return tally.summary();
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
