import {
  type LiveUpdatesPort,
  ProjectionBehindError,
  type SessionReadOptions,
  type SessionReadPort,
} from "../gateway/ports.ts";
import type { ChangelogReads } from "../kafka/changelog-reads.ts";
import type { SessionStateRecord } from "../records/session-state.ts";
import { sleep } from "../support/retry.ts";
import type { SessionReadModel, StoredSession } from "./read-model.ts";

/**
 * Reads with read-your-writes. The actors write each committed state on session.state in the
 * transaction of its events, and the gateway follows that topic; Cassandra, written by the
 * projector off the write path, may lag it. So a read takes the newest of what it knows: the read
 * model's row, the state this gateway last fetched from session.state (`committed`), and a version
 * an owner's reply handed this gateway (committed too: the reply is in the same transaction). A
 * session known nowhere is looked up on session.state before the answer is "not found": its
 * partition's end is asked and the gateway's consumer waited for (changelog-reads.ts), so a session
 * created before the read began, on any gateway, is found even while the projector is behind.
 *
 * With a `cache`, the sessions read lately stay in memory, each subscribed to its new states on
 * session.state, so a session that is polled is not read from Cassandra for every request. A cached
 * state is served while it was confirmed (read, or received from session.state) less than `ttlMs`
 * ago: new states arrive within milliseconds, and the TTL bounds how long a state whose successor
 * the gateway missed (its consumer restarted from the end of the topic) can be served. Only reads
 * that ask for it (`cached`) are answered from memory: behind a load balancer a payer polls one
 * gateway and commits through another, whose cached state may be a few hundred ms older (its
 * session.state consumer behind after a restart, or a busy machine), and a command must not be
 * refused on that.
 */
export function createSessionReads(deps: {
  readModel: SessionReadModel;
  lastReplied: (id: string) => SessionStateRecord | undefined;
  /** The states on session.state as this gateway fetched them; without it, the read model alone. */
  committed?: Pick<ChangelogReads<SessionStateRecord>, "held" | "committed">;
  cache?: { live: LiveUpdatesPort; ttlMs: number; maxSessions: number };
  /** Unix ms, for the cache's ages; Date.now by default. */
  now?: () => number;
}): SessionReadPort {
  const now = deps.now ?? Date.now;
  const cache = deps.cache && deps.cache.ttlMs > 0 ? createStateCache({ ...deps.cache, now }) : null;
  return {
    async get(sessionId, options: SessionReadOptions = {}) {
      const floor = deps.lastReplied(sessionId) ?? null;
      const hit = options.cached ? cache?.fresh(sessionId) : null;
      if (hit && (!floor || hit.version >= floor.version)) return hit;
      // Watching before reading: a state published while the read is under way is not missed.
      const watched = cache?.watch(sessionId);
      const readAt = now();
      const row = await deps.readModel.getView(sessionId);
      const read = row ? { version: row.version, session: row.view } : null;
      let newest = newer(read, deps.committed?.held(sessionId) ?? null);
      if (newest === null && floor === null) newest = (await deps.committed?.committed(sessionId)) ?? null;
      if (watched) newest = watched.confirm(newest, readAt);
      newest = newer(newest, floor);
      if (newest === null) watched?.forgetIfUnknown();
      return newest;
    },
  };
}

/** The later of two states of one session (either may be unknown). */
const newer = (a: SessionStateRecord | null, b: SessionStateRecord | null) =>
  a === null || (b !== null && b.version > a.version) ? b : a;

interface CachedSession {
  record: SessionStateRecord | null;
  /** When the record was last known to be the newest: read, or received. */
  confirmedAt: number;
  unsubscribe: () => void;
}

/** The newest known state of the sessions read lately, least recently read first. */
function createStateCache(opts: {
  live: LiveUpdatesPort;
  ttlMs: number;
  maxSessions: number;
  now: () => number;
}) {
  const sessions = new Map<string, CachedSession>();

  const note = (entry: CachedSession, record: SessionStateRecord, at: number) => {
    if (entry.record === null || record.version > entry.record.version) {
      entry.record = record;
      entry.confirmedAt = at;
    } else if (record.version === entry.record.version) {
      entry.confirmedAt = Math.max(entry.confirmedAt, at);
    }
  };

  const drop = (sessionId: string, entry: CachedSession) => {
    if (sessions.get(sessionId) !== entry) return;
    sessions.delete(sessionId);
    entry.unsubscribe();
  };

  return {
    /** The cached state if it is fresh; either way the session counts as just read. */
    fresh(sessionId: string): SessionStateRecord | null {
      const entry = sessions.get(sessionId);
      if (entry === undefined) return null;
      sessions.delete(sessionId);
      sessions.set(sessionId, entry);
      return entry.record !== null && opts.now() - entry.confirmedAt < opts.ttlMs ? entry.record : null;
    },

    /** Follows a session's new states from now on, for a read that is about to start. */
    watch(sessionId: string) {
      let entry = sessions.get(sessionId);
      if (entry === undefined) {
        const created: CachedSession = { record: null, confirmedAt: 0, unsubscribe: () => {} };
        created.unsubscribe = opts.live.subscribe(sessionId, (state) => note(created, state, opts.now()));
        sessions.set(sessionId, created);
        if (sessions.size > opts.maxSessions) {
          const [oldestId, oldest] = sessions.entries().next().value as [string, CachedSession];
          drop(oldestId, oldest);
        }
        entry = created;
      }
      const watched = entry;
      return {
        /** Takes a read's result (null: not found); returns the newest state known. */
        confirm(read: SessionStateRecord | null, readAt: number): SessionStateRecord | null {
          if (read) note(watched, read, readAt);
          return watched.record;
        },
        /** Unknown ids are not kept: probing random ids must not push real sessions out. */
        forgetIfUnknown() {
          if (watched.record === null) drop(sessionId, watched);
        },
      };
    },
  };
}

/**
 * The stored session, with what the Session object leaves out (the client secret's hash, the stealth
 * facts), for a session this gateway can see. A write answers after one commit, before the projector
 * has written the row (docs/DESIGN.md, "The write path's critical path"), so a checkout guard that
 * read the row alone answered 404 for a session created a moment before. Here a row missing for a
 * session the gateway's reads know is waited for, up to `timeoutMs`, then refused with
 * ProjectionBehindError (503, retry): never "not found" for a session that exists.
 */
export function storedWhenProjected(deps: {
  readModel: Pick<SessionReadModel, "get">;
  sessions: Pick<SessionReadPort, "get">;
  timeoutMs: number;
  now?: () => number;
}): Pick<SessionReadModel, "get"> {
  const now = deps.now ?? Date.now;
  return {
    async get(sessionId): Promise<StoredSession | null> {
      const row = await deps.readModel.get(sessionId);
      if (row) return row;
      if ((await deps.sessions.get(sessionId)) === null) return null;
      const deadline = now() + deps.timeoutMs;
      for (let waitMs = 10; now() < deadline; waitMs = Math.min(waitMs * 2, 250)) {
        await sleep(Math.min(waitMs, Math.max(0, deadline - now())), undefined);
        const projected = await deps.readModel.get(sessionId);
        if (projected) return projected;
      }
      throw new ProjectionBehindError(`session ${sessionId} is not in the read model yet`);
    },
  };
}
