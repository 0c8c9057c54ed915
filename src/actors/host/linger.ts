/**
 * How long a busy partition waits for more input before its next transaction. A transaction costs
 * about the same five Kafka requests whether it carries one event or a hundred, so under load fewer,
 * fuller transactions cost less per command (Kafka Streams commits exactly-once work every 100 ms
 * for the same reason). An idle partition does not wait: the host begins its transaction at once and
 * lingers only when input arrived while the previous one ran. The wait is bounded by `ms` and ends
 * early once `fullAt` input records are waiting, so a burst is never held back. A short wait also
 * spares the next AddPartitionsToTxn the coordinator's CONCURRENT_TRANSACTIONS answer while it
 * still writes the previous commit's markers (a retry after 20 ms, docs/PERFORMANCE.md).
 */
export interface Linger {
  /** Resolves after the bound, or sooner once `offer` saw enough input waiting, or at `release`. */
  wait(): Promise<void>;
  /** Tells a waiting partition how many input records it holds now. */
  offer(records: number): void;
  /** Ends a wait now (the partition stops). */
  release(): void;
}

export function createLinger(ms: number, fullAt: number): Linger {
  let wake: (() => void) | null = null;
  return {
    wait() {
      if (ms <= 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          wake = null;
          resolve();
        };
        const timer = setTimeout(done, ms);
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
