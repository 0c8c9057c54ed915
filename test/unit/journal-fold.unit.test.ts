import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/domain/events.ts";
import { evolve } from "../../src/domain/evolve.ts";
import type { Session, SessionState } from "../../src/domain/types.ts";
import { SessionJournal } from "../../src/projections/journal-collect.ts";
import { foldSession, StatesTally, summarize } from "../../src/projections/journal-fold.ts";
import { codecs } from "../support/codecs.ts";
import { generator } from "../support/generate.ts";

/** One session's events as the actor host writes them: created, then deposits, some retracted. */
function sessionEvents(seed: number, id: string): SessionEvent[] {
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
      data: {
        flow: "p2p_request",
        merchantId: null,
        burner: g.address(),
        auth: g.authorization(),
        destAddress: g.address(),
        destChainId: 42161,
        appFeeBps: g.int(0, 100),
        appFeeRecipient: g.address(),
        standingRefund: null,
        stealth: null,
        stealthDestinations: null,
        expiresAt: 1_750_003_600,
        expectedAmount: null,
        pinnedDestinations: [],
        clientSecretHash: null,
        originChainId: null,
        appFeeRecipientSol: null,
        refundAddress: null,
      },
      metadata: meta(),
    },
  ];
  for (let i = g.int(0, 6); i > 0; i--) {
    const transfer = g.transfer();
    events.push({ type: "DepositObserved", data: { transfer, finality: null }, metadata: meta() });
    if (g.int(0, 3) === 0) {
      const { chainId, txHash, logIndex } = transfer;
      events.push({ type: "DepositRetracted", data: { chainId, txHash, logIndex }, metadata: meta() });
    }
  }
  return events;
}

/** A journal of `count` sessions, their records interleaved, with some records delivered twice. */
function journalOf(count: number, chunkBytes: number) {
  const g = generator(count);
  const sessions = new Map<string, SessionEvent[]>();
  for (let i = 0; i < count; i++) {
    const id = g.uuid();
    sessions.set(id, sessionEvents(1000 + i, id));
  }
  const journal = new SessionJournal(chunkBytes);
  const cursors = [...sessions].map(([id, events]) => ({ id, events, next: 0 }));
  let duplicates = 0;
  while (cursors.some((c) => c.next < c.events.length)) {
    const c = g.pick(cursors.filter((x) => x.next < x.events.length));
    const event = c.events[c.next++] as SessionEvent;
    const copies = g.int(0, 9) === 0 ? 2 : 1; // a redelivered record sits right after the first
    duplicates += copies - 1;
    for (let k = 0; k < copies; k++) journal.file(c.id, codecs.sessionEvent.encode(event));
  }
  return { journal, sessions, duplicates };
}

describe("a replay's fold of a collected journal", () => {
  it("gives each session the state its events give through evolve, counting a redelivered record once", () => {
    // 256-byte chunks: most records straddle no chunk, and a SessionCreated (larger) gets one of its own.
    for (const chunkBytes of [256, 16 * 1024 * 1024]) {
      const { journal, sessions, duplicates } = journalOf(40, chunkBytes);
      expect(duplicates).toBeGreaterThan(0);
      const tally = new StatesTally();
      let applied = 0;
      const states = new Map<string, Session>();
      for (const [id, refs] of journal.sessions()) {
        const { state, events } = foldSession(codecs.sessionEvent, journal, id, refs);
        const expected = (sessions.get(id) as SessionEvent[]).reduce(evolve, null as SessionState);
        expect(state, `session ${id}, chunks of ${chunkBytes} bytes`).toEqual(expected);
        expect(events).toBe(sessions.get(id)?.length);
        tally.add(state, events);
        applied += events;
        if (state) states.set(id, state);
      }
      expect(applied).toBe(journal.records - duplicates);
      expect(tally.summary()).toEqual(summarize({ states, events: applied }));
    }
  });

  it("refuses a record filed under another session's key", () => {
    const { journal } = journalOf(3, 1024);
    const [[first, refs], [second]] = [...journal.sessions()] as [[string, number[]], [string, number[]]];
    expect(first).not.toBe(second);
    expect(() => foldSession(codecs.sessionEvent, journal, second, refs)).toThrow(
      /holds an event of session/,
    );
  });
});

describe("a collected journal's index", () => {
  it("hands each session its records in journal order, sessions in order of first appearance, past its growth", () => {
    // 5,000 records over 7 sessions: the flat index starts at 1,024 records and grows twice.
    const journal = new SessionJournal(4096);
    const ids = Array.from({ length: 7 }, (_, i) => `session-${i}`);
    const expected = new Map<string, string[]>();
    for (let n = 0; n < 5000; n++) {
      // Not round-robin, so the sessions' records interleave unevenly.
      const id = ids[(3 * n + Math.floor(n / 5)) % 7] as string;
      const body = `${id}#${n}`;
      journal.file(id, Buffer.from(body));
      expected.set(id, [...(expected.get(id) ?? []), body]);
    }
    const got = [...journal.sessions()].map(([id, refs]) => {
      const bodies: string[] = [];
      for (let i = 0; i < refs.length; i += 2) {
        bodies.push(journal.arena.view(refs[i] as number, refs[i + 1] as number).toString());
      }
      return [id, bodies] as const;
    });
    expect(journal.records).toBe(5000);
    expect(journal.sessionCount).toBe(7);
    expect(got).toEqual([...expected]);
  });
});
