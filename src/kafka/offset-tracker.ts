/**
 * What a consumer that finishes records out of order may commit: per partition, the offset of the
 * oldest record still being worked (everything before it is done), or the one after the newest
 * record handed out when none is being worked. A crash then re-delivers exactly what was not done.
 */
export function createOffsetTracker() {
  const partitions = new Map<number, { pending: Set<bigint>; next: bigint; committed: bigint }>();
  const stateOf = (p: number) => {
    const s = partitions.get(p) ?? { pending: new Set<bigint>(), next: -1n, committed: -1n };
    partitions.set(p, s);
    return s;
  };
  return {
    /** A record handed to its worker. */
    started(partition: number, offset: bigint): void {
      const s = stateOf(partition);
      s.pending.add(offset);
      if (offset + 1n > s.next) s.next = offset + 1n;
    },
    /** A record done: the offset to commit now, or null when the committable offset did not move. */
    done(partition: number, offset: bigint): bigint | null {
      const s = stateOf(partition);
      s.pending.delete(offset);
      let commit = s.next;
      for (const o of s.pending) if (o < commit) commit = o;
      if (commit <= s.committed) return null;
      s.committed = commit;
      return commit;
    },
  };
}
