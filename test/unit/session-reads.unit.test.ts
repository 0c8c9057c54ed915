import { describe, expect, it } from "vitest";
import type { SessionView } from "../../src/domain/view.ts";
import type { LiveUpdatesPort } from "../../src/gateway/ports.ts";
import { ProjectionBehindError } from "../../src/gateway/ports.ts";
import type { SessionReadModel, StoredSession } from "../../src/projections/read-model.ts";
import { createSessionReads, storedWhenProjected } from "../../src/projections/session-reads.ts";
import type { SessionStateRecord } from "../../src/records/session-state.ts";

const ID = "6f1c1d9e-8f2a-4b7c-9d1e-2a3b4c5d6e7f";
const OTHER = "0b7e5a4c-1d2e-4f30-8a1b-2c3d4e5f6a7b";
const TTL_MS = 5000;

// The cache never looks inside a view; a stand-in with the version in it is enough to tell them apart.
const state = (id: string, version: number): SessionStateRecord => ({
  version,
  session: { id, status: "pending", version } as unknown as SessionView,
});

/**
 * A read model of rows that tests change, counting reads; a read may be held until `release`. The
 * gateway's view of session.state holds what `commit` put there; a lookup of a key it does not hold
 * finds what `commitDuringWait` put on the topic meanwhile (the consumer passing the end offset).
 */
function fakeService(opts: { ttlMs?: number; maxSessions?: number } = {}) {
  const rows = new Map<string, SessionStateRecord>();
  const onTopic = new Map<string, SessionStateRecord>();
  const arriving = new Map<string, SessionStateRecord>();
  let lookups = 0;
  const replied = new Map<string, SessionStateRecord>();
  const listeners = new Map<string, Set<(s: SessionStateRecord) => void>>();
  let reads = 0;
  let hold: Promise<void> | null = null;
  let clock = 1_000_000;
  const readModel = {
    async getView(id: string) {
      reads++;
      const row = rows.get(id);
      if (hold) await hold;
      return row ? { version: row.version, view: row.session } : null;
    },
  } as unknown as SessionReadModel;
  const live: LiveUpdatesPort = {
    subscribe(id, listener) {
      const set = listeners.get(id) ?? new Set();
      set.add(listener);
      listeners.set(id, set);
      return () => {
        set.delete(listener);
        if (set.size === 0) listeners.delete(id);
      };
    },
  };
  const notify = (record: SessionStateRecord) => {
    for (const l of listeners.get(record.session.id) ?? []) l(record);
  };
  const sessionReads = createSessionReads({
    readModel,
    lastReplied: (id) => replied.get(id),
    committed: {
      held: (id) => onTopic.get(id) ?? null,
      async committed(id) {
        lookups++;
        const late = arriving.get(id);
        if (late) onTopic.set(id, late);
        return onTopic.get(id) ?? null;
      },
    },
    cache: { live, ttlMs: opts.ttlMs ?? TTL_MS, maxSessions: opts.maxSessions ?? 100 },
    now: () => clock,
  });
  return {
    /** A polling read (GET /sessions/:id): the cache may answer. */
    get: (id: string) => sessionReads.get(id, { cached: true }),
    /** A command's read: always the read model. */
    getForCommand: (id: string) => sessionReads.get(id),
    reads: () => reads,
    lookups: () => lookups,
    /** An actor's commit: the state on session.state (the projector has not written it yet). */
    commit(record: SessionStateRecord) {
      onTopic.set(record.session.id, record);
      notify(record);
    },
    /** A state committed before the read, not yet fetched by this gateway's consumer. */
    commitDuringWait: (record: SessionStateRecord) => arriving.set(record.session.id, record),
    /** The state committed and projected: a row in Cassandra, and the record on session.state. */
    project(record: SessionStateRecord, publish = true) {
      rows.set(record.session.id, record);
      if (publish) notify(record);
    },
    publishOnly: notify,
    reply: (record: SessionStateRecord) => replied.set(record.session.id, record),
    advance: (ms: number) => {
      clock += ms;
    },
    watched: () => [...listeners.keys()],
    holdReads() {
      let release = () => {};
      hold = new Promise<void>((r) => {
        release = r;
      });
      return () => {
        hold = null;
        release();
      };
    },
  };
}

/** A service whose cache holds ID at `version`, read once from the read model. */
async function cachedAfterOneRead(version = 1, opts: Parameters<typeof fakeService>[0] = {}) {
  const svc = fakeService(opts);
  svc.project(state(ID, version));
  await svc.get(ID);
  return svc;
}

describe("session reads with the in-memory cache", () => {
  it("answers a session read once from memory until the TTL has passed", async () => {
    const svc = fakeService();
    svc.project(state(ID, 1));
    expect(await svc.get(ID)).toEqual(state(ID, 1));
    svc.advance(TTL_MS - 1);
    expect(await svc.get(ID)).toEqual(state(ID, 1));
    expect(svc.reads()).toBe(1);
    svc.advance(1);
    expect(await svc.get(ID)).toEqual(state(ID, 1));
    expect(svc.reads()).toBe(2);
  });

  it("takes a new state from session.state at once, without reading Cassandra", async () => {
    const svc = await cachedAfterOneRead();
    svc.advance(TTL_MS - 1);
    svc.project(state(ID, 2));
    expect(await svc.get(ID)).toEqual(state(ID, 2));
    // Received just now: fresh for another TTL.
    svc.advance(TTL_MS - 1);
    expect(await svc.get(ID)).toEqual(state(ID, 2));
    expect(svc.reads()).toBe(1);
  });

  it("ignores an older state delivered again", async () => {
    const svc = await cachedAfterOneRead(3);
    svc.publishOnly(state(ID, 2));
    expect(await svc.get(ID)).toEqual(state(ID, 3));
  });

  it("keeps a state published while the read of an older one is under way", async () => {
    const svc = fakeService();
    svc.project(state(ID, 1));
    const release = svc.holdReads();
    const reading = svc.get(ID);
    svc.project(state(ID, 2));
    release();
    expect(await reading).toEqual(state(ID, 2));
    expect(await svc.get(ID)).toEqual(state(ID, 2));
    expect(svc.reads()).toBe(1);
  });

  it("never answers older than a version this gateway replied, cached or not", async () => {
    const svc = await cachedAfterOneRead();
    // The owner replied v2; the projector wrote it but its session.state record is not here yet.
    svc.reply(state(ID, 2));
    svc.project(state(ID, 2), false);
    expect(await svc.get(ID)).toEqual(state(ID, 2));
    expect(svc.reads()).toBe(2);
  });

  it("answers the replied state at once when the read model is older (the reply is committed)", async () => {
    const svc = await cachedAfterOneRead();
    svc.reply(state(ID, 2));
    expect(await svc.get(ID)).toEqual(state(ID, 2));
    expect(await svc.getForCommand(ID)).toEqual(state(ID, 2));
    expect(svc.lookups()).toBe(0);
  });

  it("never answers a read-model row older than the state this gateway fetched from session.state", async () => {
    const svc = fakeService({ ttlMs: 0 });
    svc.project(state(ID, 1));
    svc.commit(state(ID, 3));
    expect(await svc.get(ID)).toEqual(state(ID, 3));
    expect(await svc.getForCommand(ID)).toEqual(state(ID, 3));
    // A read model ahead of what this gateway fetched (its consumer behind) is taken.
    svc.project(state(ID, 4), false);
    expect(await svc.getForCommand(ID)).toEqual(state(ID, 4));
    expect(svc.lookups()).toBe(0);
  });

  it("finds a session Cassandra does not have yet on session.state, waiting for its consumer", async () => {
    // Created through another gateway; the projector is behind, and this consumer has not fetched it.
    const svc = fakeService();
    svc.commitDuringWait(state(OTHER, 1));
    expect(await svc.get(OTHER)).toEqual(state(OTHER, 1));
    expect(svc.lookups()).toBe(1);
    // Held from then on, and cached: no second lookup.
    expect(await svc.getForCommand(OTHER)).toEqual(state(OTHER, 1));
    expect(svc.lookups()).toBe(1);
  });

  it("keeps nothing for an unknown session, after looking it up on session.state", async () => {
    const svc = fakeService();
    expect(await svc.get(OTHER)).toBeNull();
    expect(svc.lookups()).toBe(1);
    expect(svc.watched()).toEqual([]);
    // Created later, it is found: nothing negative was cached.
    svc.project(state(OTHER, 1));
    expect(await svc.get(OTHER)).toEqual(state(OTHER, 1));
  });

  it("answers a session created while its read found nothing, and caches no 'not found'", async () => {
    // Another gateway's POST: the projector writes and publishes while this read is under way.
    const svc = fakeService();
    const release = svc.holdReads();
    const reading = svc.get(OTHER);
    svc.project(state(OTHER, 1));
    release();
    expect(await reading).toEqual(state(OTHER, 1));
    expect(await svc.get(OTHER)).toEqual(state(OTHER, 1));
    expect(svc.reads()).toBe(1);
  });

  it("holds at most maxSessions, dropping (and unsubscribing) the least recently read", async () => {
    const svc = fakeService({ maxSessions: 2 });
    const ids = [ID, OTHER, "11111111-2222-4333-8444-555555555555"];
    for (const id of ids) svc.project(state(id, 1));
    await svc.get(ids[0] as string);
    await svc.get(ids[1] as string);
    await svc.get(ids[0] as string);
    await svc.get(ids[2] as string);
    expect(svc.watched().sort()).toEqual([ids[0], ids[2]].sort());
    expect(svc.reads()).toBe(3);
    await svc.get(ids[1] as string);
    expect(svc.reads()).toBe(4);
  });

  it("reads the read model for a command even while a cached state is fresh, and keeps what it read", async () => {
    // Behind a load balancer: another gateway answered v2 (the deposit detected) from the read model,
    // and this gateway's session.state consumer has not delivered v2 yet.
    const svc = await cachedAfterOneRead(1);
    svc.project(state(ID, 2), false);
    expect(await svc.get(ID)).toEqual(state(ID, 1));
    expect(await svc.getForCommand(ID)).toEqual(state(ID, 2));
    expect(svc.reads()).toBe(2);
    // The polling read that follows has the newer state, from memory.
    expect(await svc.get(ID)).toEqual(state(ID, 2));
    expect(svc.reads()).toBe(2);
  });

  it("reads Cassandra every time when the TTL is 0", async () => {
    const svc = await cachedAfterOneRead(1, { ttlMs: 0 });
    await svc.get(ID);
    expect(svc.reads()).toBe(2);
    expect(svc.watched()).toEqual([]);
  });
});

describe("stored sessions for the checkout guards (storedWhenProjected)", () => {
  const stored = (id: string): StoredSession =>
    ({ ...state(id, 1), view: state(id, 1).session }) as unknown as StoredSession;

  it("answers the row when the projector has written it, without asking the gateway's reads", async () => {
    let asked = 0;
    const reads = storedWhenProjected({
      readModel: { get: async (id) => stored(id) },
      sessions: {
        get: async () => {
          asked++;
          return null;
        },
      },
      timeoutMs: 1000,
    });
    expect((await reads.get(ID))?.version).toBe(1);
    expect(asked).toBe(0);
  });

  it("is null (404) for a session that exists nowhere", async () => {
    const reads = storedWhenProjected({
      readModel: { get: async () => null },
      sessions: { get: async () => null },
      timeoutMs: 1000,
    });
    expect(await reads.get(ID)).toBeNull();
  });

  it("waits for the row of a session the gateway knows (a write answers before its projection)", async () => {
    let rowReads = 0;
    const reads = storedWhenProjected({
      // The projector writes the row on the third read.
      readModel: { get: async (id) => (++rowReads >= 3 ? stored(id) : null) },
      sessions: { get: async (id) => state(id, 1) },
      timeoutMs: 5000,
    });
    expect((await reads.get(ID))?.view.id).toBe(ID);
    expect(rowReads).toBe(3);
  });

  it("refuses with a retryable ProjectionBehindError when the row does not come in time", async () => {
    const reads = storedWhenProjected({
      readModel: { get: async () => null },
      sessions: { get: async (id) => state(id, 1) },
      timeoutMs: 60,
    });
    const err = await reads.get(OTHER).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProjectionBehindError);
    expect((err as ProjectionBehindError).retryable).toBe(true);
  });
});
