import { type Session, type SessionStatus, STATUSES } from "../domain/types.ts";

export interface FoldedJournal {
  states: Map<string, Session>;
  /** Events applied (a duplicate of an applied version is skipped and not counted). */
  events: number;
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

/**
 * Adds states up one at a time, so a replay can summarize states it does not keep; a state written
 * out early and folded further is taken back (remove) before its later state is added.
 */
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
    if (state) this.count(state, 1);
  }

  /** Takes back a state added before (not its events: they stay applied). */
  remove(state: Session): void {
    this.count(state, -1);
  }

  private count(state: Session, sign: 1 | -1): void {
    this.sessions += sign;
    this.byStatus[state.status] += sign;
    this.deposits += sign * state.deposits.length;
    this.versions += sign * state.version;
    for (const d of state.deposits) this.amount += sign === 1 ? d.amount : -d.amount;
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
