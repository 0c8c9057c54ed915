/**
 * How long a busy partition waits for more input before its next transaction. A transaction costs
 * about the same five Kafka requests whether it carries one event or a hundred, so under load fewer,
 * fuller transactions cost less per command (Kafka Streams commits exactly-once work every 100 ms
 * for the same reason). An idle partition does not wait: the host begins its transaction at once and
 * lingers only when input arrived while the previous one ran. The wait is bounded by `ms` and ends
 * early once `fullAt` input records are waiting, so a burst is never held back. A short wait also
 * spares the next AddPartitionsToTxn the coordinator's CONCURRENT_TRANSACTIONS answer while it
 * still writes the previous commit's markers (a retry after 20 ms, docs/PERFORMANCE.md).
 *
 * Under load the wait grows with the partition's last transaction, up to `maxMs`: a transaction that
 * took long says the broker and the cores are busy, so more input gathers in the next one, and the
 * broker's work per transaction (its coordinator writes and commit markers, whatever the size) is
 * shared by more commands. On a quiet machine transactions take a few milliseconds and the wait
 * stays near `ms`.
 */
export interface Linger {
  /**
   * Resolves after the bound (the last transaction's length, between `ms` and `maxMs`), or sooner
   * once `offer` saw enough input waiting, or at `release`.
   */
  wait(lastTransactionMs: number): Promise<void>;
  /** Tells a waiting partition how many input records it holds now. */
  offer(records: number): void;
  /** Ends a wait now (the partition stops). */
  release(): void;
}

/** The wait after a transaction of `lastTransactionMs`: that long, but at least `ms` and at most `maxMs`. */
export function lingerMs(ms: number, maxMs: number, lastTransactionMs: number): number {
  if (ms <= 0) return 0;
  return Math.min(Math.max(ms, maxMs), Math.max(ms, Math.round(lastTransactionMs)));
}

/** `maxMs` at or below `ms`: a fixed wait of `ms`. */
export function createLinger(ms: number, fullAt: number, maxMs = ms): Linger {
  let wake: (() => void) | null = null;
  return {
    wait(lastTransactionMs) {
      const bound = lingerMs(ms, maxMs, lastTransactionMs);
      if (bound <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
        const timer = setTimeout(done, bound);
        wake = done;
      });
    },
    offer(records) {
      if (records >= fullAt) wake?.();
    },
    release() {
      wake?.();
    },
  };
}
