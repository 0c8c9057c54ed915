import { createLru } from "../support/lru.ts";

/**
 * A gateway's view of an entity changelog (session.state) it follows from the end: the newest
 * record of each key it fetched lately, kept as bytes (decoding every state would cost every
 * gateway ~9 µs per record; only a key asked for is decoded), and how far its consumer got in
 * each partition.
 *
 * A state committed before a read began is found: a key not held is looked up by asking the
 * partition's last stable offset (one ListOffsets) and waiting, bounded, until the consumer has
 * passed it. Held means fetched within the last `maxKeys` keys: past that a state is found in the
 * read model, which the projector writes off the write path (docs/DESIGN.md, "Read side").
 */
export interface ChangelogReads<Record> {
  /** A fetched record of `key` (the newest wins: one key lives in one partition, in offset order). */
  take(key: string, value: Buffer): void;
  /**
   * The consumer reached `nextOffset` in `partition` (also after a batch of transaction markers
   * only), or will start there at least. Positions only move forward.
   */
  advance(partition: number, nextOffset: bigint): void;
  /** The newest record of `key` this gateway fetched, if it still holds it; never waits. */
  held(key: string): Record | null;
  /**
   * As `held`, but a key not held waits until everything committed before the call was fetched.
   * Bounded by `waitMs` in all: a broker that does not answer (an outage) leaves what is held.
   */
  committed(key: string): Promise<Record | null>;
  /** Resolves true once the consumer has reached every partition's offset in `ends`, false after `waitMs`. */
  caughtUp(ends: ReadonlyMap<number, bigint>, waitMs: number): Promise<boolean>;
}

export function createChangelogReads<Record>(deps: {
  decode: (value: Buffer) => Record;
  /** The key's partition and its last stable offset, asked of the broker now. */
  endOf: (key: string) => Promise<{ partition: number; offset: bigint }>;
  /** How long a lookup waits for the consumer before it answers "none". */
  waitMs: number;
  maxKeys: number;
}): ChangelogReads<Record> {
  const recent = createLru<string, Buffer>(deps.maxKeys);
  const positions = new Map<number, bigint>();
  const waiters = new Set<{ partition: number; offset: bigint; wake: () => void }>();

  const held = (key: string) => {
    const value = recent.get(key);
    return value === undefined ? null : deps.decode(value);
  };

  /** Resolves true once the consumer is at or past `offset` in `partition`, false at `deadline`. */
  const reached = (partition: number, offset: bigint, deadline: number) =>
    new Promise<boolean>((resolve) => {
      if ((positions.get(partition) ?? 0n) >= offset) return resolve(true);
      const waiter = {
        partition,
        offset,
        wake: () => {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(true);
        },
      };
      const timer = setTimeout(
        () => {
          waiters.delete(waiter);
          resolve(false);
        },
        Math.max(0, deadline - Date.now()),
      );
      waiters.add(waiter);
    });

  /** The key's partition end, or null when the broker does not say within the bound (an outage). */
  const endBefore = (key: string, deadline: number) =>
    new Promise<{ partition: number; offset: bigint } | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), Math.max(0, deadline - Date.now()));
      deps.endOf(key).then(
        (end) => {
          clearTimeout(timer);
          resolve(end);
        },
        () => {
          clearTimeout(timer);
          resolve(null);
        },
      );
    });

  return {
    take(key, value) {
      recent.set(key, value);
    },
    advance(partition, nextOffset) {
      if (nextOffset <= (positions.get(partition) ?? 0n)) return;
      positions.set(partition, nextOffset);
      for (const w of waiters) if (w.partition === partition && w.offset <= nextOffset) w.wake();
    },
    held,
    async committed(key) {
      const found = held(key);
      if (found !== null) return found;
      // One bound for both steps: the broker's answer and the consumer getting there.
      const deadline = Date.now() + deps.waitMs;
      const end = await endBefore(key, deadline);
      if (end !== null) await reached(end.partition, end.offset, deadline);
      return held(key);
    },
    async caughtUp(ends, waitMs) {
      const deadline = Date.now() + waitMs;
      const all = await Promise.all([...ends].map(([partition, end]) => reached(partition, end, deadline)));
      return all.every(Boolean);
    },
  };
}
