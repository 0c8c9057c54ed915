import type { CassandraClient } from "./cassandra.ts";

/** One conditional write (a lightweight transaction) on one row. */
export interface ConditionalWrite {
  /** The row written (its key within the partition): a batch holds at most one write of a row. */
  row: string;
  query: string;
  params: unknown[];
  /** About how many bytes it sends, to keep a batch under Cassandra's batch size limit. */
  bytes: number;
}

interface Waiting {
  write: ConditionalWrite;
  resolve: (applied: boolean) => void;
  reject: (err: unknown) => void;
}

interface PartitionQueue {
  waiting: Waiting[];
  /** A batch of this partition is being written, or one is about to be. */
  busy: boolean;
}

const Q = { prepare: true } as const;
/** Rows per conditional batch. */
const MAX_ROWS = 64;
/** Bytes per batch: Cassandra refuses batches over batch_size_fail_threshold (50 KiB by default). */
const MAX_BYTES = 32 * 1024;

/**
 * Pays one Paxos round for many conditional writes of one partition, as a group commit does: the
 * writes submitted in one tick, and those submitted while the partition's previous batch is in
 * flight, go together as one conditional batch; an idle partition's write waits for nothing. A
 * conditional batch applies all or nothing: when one condition fails, no row is written and every
 * write of the batch is tried again alone, so each write gets exactly the answer it would get alone
 * (applied or not), and the others are not held back by the one that failed.
 *
 * Every write given for a partition must be to that partition (Cassandra refuses the batch
 * otherwise). The order of one partition's writes is kept, and two writes of one row are never in
 * one batch.
 */
export function createConditionalBatcher(client: CassandraClient) {
  const partitions = new Map<string, PartitionQueue>();
  let rounds = 0;

  async function alone(w: Waiting): Promise<void> {
    try {
      rounds++;
      w.resolve((await client.execute(w.write.query, w.write.params, Q)).wasApplied());
    } catch (err) {
      w.reject(err);
    }
  }

  async function write(batch: Waiting[]): Promise<void> {
    if (batch.length > 1) {
      try {
        rounds++;
        const rs = await client.batch(
          batch.map((w) => ({ query: w.write.query, params: w.write.params })),
          Q,
        );
        if (rs.wasApplied()) {
          for (const w of batch) w.resolve(true);
          return;
        }
      } catch (err) {
        // Unknown whether it applied (a timeout): each caller sees the error, as it would alone.
        for (const w of batch) w.reject(err);
        return;
      }
    }
    // One at a time: they are all on one partition, where concurrent Paxos rounds only contend.
    for (const w of batch) await alone(w);
  }

  function pump(key: string, q: PartitionQueue): void {
    const batch: Waiting[] = [];
    const rows = new Set<string>();
    let bytes = 0;
    for (const w of q.waiting) {
      if (batch.length === MAX_ROWS || (batch.length > 0 && bytes + w.write.bytes > MAX_BYTES)) break;
      // A second write of a row waits for the next batch: in one batch both conditions would be
      // checked against the row as it was, and both would apply (two redeliveries, two claims).
      if (rows.has(w.write.row)) break;
      rows.add(w.write.row);
      batch.push(w);
      bytes += w.write.bytes;
    }
    q.waiting.splice(0, batch.length);
    void write(batch).finally(() => {
      if (q.waiting.length > 0) return pump(key, q);
      q.busy = false;
      partitions.delete(key);
    });
  }

  return {
    /** Writes `write` to `partition` (with others of it when they come together): whether it applied. */
    submit(partition: string, write: ConditionalWrite): Promise<boolean> {
      return new Promise<boolean>((resolve, reject) => {
        let q = partitions.get(partition);
        if (!q) {
          q = { waiting: [], busy: false };
          partitions.set(partition, q);
        }
        q.waiting.push({ write, resolve, reject });
        if (q.busy) return;
        q.busy = true;
        const queue = q;
        // After this tick, so the writes a caller submits together (one consumed batch) go together.
        setImmediate(() => pump(partition, queue));
      });
    },
    /** Paxos rounds paid so far: batches, and writes sent alone. */
    rounds: () => rounds,
  };
}

export type ConditionalBatcher = ReturnType<typeof createConditionalBatcher>;
