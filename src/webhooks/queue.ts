/** A delivery to attempt, as the ledger had it when it was queued. */
export interface DeliveryJob {
  /** The ledger partition of the delivery (null: the table before migration 0021). */
  bucket: string | null;
  idempotencyKey: string;
  merchantId: string;
  payload: string;
  attempts: number;
  nextRetryAt: number;
  /** The row was written with this process's lease (`nextRetryAt`): the first attempt, no claim needed. */
  claimed?: boolean;
}

/** Attempts writing their outcome, per place among the `concurrency`. */
export const RECORDING_FACTOR = 4;

/**
 * The attempts of one process: at most `concurrency` requests at once, first queued first started, each key
 * at most once in the queue (the consumer and the retry scan may both find a delivery), and at most
 * `maxQueued` waiting: past that a job is refused, which loses nothing, since the ledger still has
 * it due and the next scan offers it again.
 */
export function createDeliveryQueue(opts: {
  concurrency: number;
  maxQueued: number;
  /**
   * Makes the attempt; calls `sent()` once its request is over (answered, failed or never made), when
   * what is left is writing its outcome: the attempt's place among the `concurrency` is then free.
   */
  run: (job: DeliveryJob, sent: () => void) => Promise<void>;
}) {
  const waiting: DeliveryJob[] = [];
  const keys = new Set<string>();
  const active = new Set<Promise<void>>();
  // Attempts whose request is not over yet: at most `concurrency`.
  let sending = 0;
  // Attempts writing their outcome are bounded too (their key stays held until it is written).
  const maxActive = RECORDING_FACTOR * opts.concurrency;
  let stopped = false;

  const pump = () => {
    while (!stopped && sending < opts.concurrency && active.size < maxActive && waiting.length > 0) {
      const job = waiting.shift() as DeliveryJob;
      sending++;
      let over = false;
      const sent = () => {
        if (over) return;
        over = true;
        sending--;
        pump();
      };
      const work: Promise<void> = opts.run(job, sent).finally(() => {
        active.delete(work);
        keys.delete(job.idempotencyKey);
        sent();
        pump();
      });
      active.add(work);
    }
  };

  return {
    /** false when not queued: already queued or running here, the queue is full, or stopping. */
    push(job: DeliveryJob): boolean {
      if (stopped || keys.has(job.idempotencyKey) || waiting.length >= opts.maxQueued) return false;
      keys.add(job.idempotencyKey);
      waiting.push(job);
      pump();
      return true;
    },
    /** How many pushes now would find room (one can still be refused as a duplicate). */
    room: () => (stopped ? 0 : Math.max(0, opts.maxQueued - waiting.length)),
    /** Attempts running now (sending, or writing their outcome). */
    running: () => active.size,
    waiting: () => waiting.length,
    /**
     * Drops what has not started (the ledger keeps it due) and waits for the attempts running;
     * answers the jobs dropped, so the owner can give back the claims among them.
     */
    async stop(): Promise<DeliveryJob[]> {
      stopped = true;
      const dropped = waiting.splice(0);
      for (const job of dropped) keys.delete(job.idempotencyKey);
      await Promise.allSettled([...active]);
      return dropped;
    },
  };
}
