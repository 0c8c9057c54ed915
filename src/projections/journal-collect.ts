import type { KafkaClient } from "../kafka/client.ts";
import { type FetchSizes, readTopic } from "../kafka/topic-reader.ts";
import { ByteArena } from "../support/byte-arena.ts";

// Nothing here decodes a record: a replay worker reads with only Kafka's client loaded and loads the
// codecs and the fold (a fifth of a second of module loading) while its first fetches are in flight.

/**
 * A replay's fetch sizes: 2 MiB per response, which then carries about one partition's records
 * (the broker varies which: the partitions of a read still finish together).
 * Small on purpose: kafkajs joins each response into one new buffer, and with 64 MiB responses that
 * allocation and copy cost more than the records in them (15% of a replay's CPU in a profile);
 * 2 MiB blocks are reused as they are freed. Twice the broker's default batch limit, so a batch is
 * never cut for want of room (measured against other sizes in docs/PERFORMANCE.md).
 */
export const REPLAY_FETCH: FetchSizes = { maxBytesPerPartition: 2 * 1024 * 1024, maxBytes: 2 * 1024 * 1024 };

/**
 * A SessionEvent journal's records grouped by session, still encoded: the first of a replay's two
 * phases. Folding record by record as they arrive would keep every session's decoded state alive
 * through the whole read, and copying those surviving objects was a third of a replay's CPU; kept
 * as bytes in an arena they cost the garbage collector nothing, and each session is then decoded
 * and folded in one go, its intermediate objects dying young.
 *
 * The index is flat as well: per record, its session's number, position and length in typed
 * arrays, grouped by session only when the fold asks (a counting sort). An array per session grown
 * record by record survived the whole read, and filing a record cost twice what reading it from
 * Kafka did (docs/PERFORMANCE.md "Replay").
 */
export class SessionJournal {
  readonly arena: ByteArena;
  records = 0;
  /** Each session's number, in order of first appearance. */
  private readonly numbers = new Map<string, number>();
  private sessionOf = new Int32Array(1024);
  private positions = new Float64Array(1024);
  private lengths = new Int32Array(1024);

  constructor(chunkBytes?: number) {
    this.arena = new ByteArena(chunkBytes);
  }

  /** Files one record of a session, after the session's earlier ones. */
  file(sessionId: string, bytes: Uint8Array): void {
    let session = this.numbers.get(sessionId);
    if (session === undefined) {
      session = this.numbers.size;
      this.numbers.set(sessionId, session);
    }
    const i = this.records++;
    if (i === this.positions.length) this.grow();
    this.sessionOf[i] = session;
    this.positions[i] = this.arena.append(bytes);
    this.lengths[i] = bytes.length;
  }

  get sessionCount(): number {
    return this.numbers.size;
  }

  /**
   * Each session (in order of first appearance) and its records in journal order, as
   * [position, length] pairs into `arena`. Each pair list is built when its session comes up, so it
   * dies young.
   */
  *sessions(): Generator<[id: string, refs: number[]]> {
    const count = this.numbers.size;
    const records = this.records;
    // starts[s] is where session s's records begin in `order`; a stable counting sort keeps journal order.
    const starts = new Int32Array(count + 1);
    for (let i = 0; i < records; i++) {
      const at = (this.sessionOf[i] as number) + 1;
      starts[at] = (starts[at] as number) + 1;
    }
    for (let s = 0; s < count; s++) starts[s + 1] = (starts[s + 1] as number) + (starts[s] as number);
    const next = starts.slice(0, count);
    const order = new Int32Array(records);
    for (let i = 0; i < records; i++) {
      const session = this.sessionOf[i] as number;
      const at = next[session] as number;
      order[at] = i;
      next[session] = at + 1;
    }
    let s = 0;
    for (const id of this.numbers.keys()) {
      const refs: number[] = [];
      for (let k = starts[s] as number; k < (starts[s + 1] as number); k++) {
        const i = order[k] as number;
        refs.push(this.positions[i] as number, this.lengths[i] as number);
      }
      s++;
      yield [id, refs];
    }
  }

  private grow(): void {
    const size = this.positions.length * 2;
    const sessionOf = new Int32Array(size);
    sessionOf.set(this.sessionOf);
    this.sessionOf = sessionOf;
    const positions = new Float64Array(size);
    positions.set(this.positions);
    this.positions = positions;
    const lengths = new Int32Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }
}

/**
 * Reads the given partitions of a SessionEvent journal, from offset zero up to the given ends,
 * grouping the records by session by their key: the journal is keyed by session id
 * (topics/), and a record without one is refused as a broken journal rather than skipped.
 */
export async function collectJournal(
  kafka: KafkaClient,
  opts: {
    topic: string;
    /** The partitions to read and where each ends (exclusive): the last stable offsets when the replay began. */
    until: Map<number, bigint>;
    /** Records read since the previous call (after every fetched batch). */
    onRead?: (records: number) => void;
    signal?: AbortSignal;
  },
): Promise<SessionJournal> {
  const journal = new SessionJournal();
  await readTopic(kafka, {
    topic: opts.topic,
    from: new Map([...opts.until.keys()].map((p) => [p, 0n])),
    until: opts.until,
    fetch: REPLAY_FETCH,
    ...(opts.signal ? { signal: opts.signal } : {}),
    onBatch: (records) => {
      for (const r of records) {
        if (!r.value) continue;
        if (!r.key) {
          throw new Error(
            `${opts.topic} record ${r.partition}:${r.offset} has no key (the journal is keyed by session id)`,
          );
        }
        journal.file(r.key.toString(), r.value);
      }
      opts.onRead?.(records.length);
    },
  });
  return journal;
}
