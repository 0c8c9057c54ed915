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
 */
export interface SessionJournal {
  /** Each session's records in journal order, as [position, length] pairs into `arena`. */
  sessions: Map<string, number[]>;
  arena: ByteArena;
  records: number;
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
  const journal = emptyJournal();
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
        fileRecord(journal, r.key.toString(), r.value);
      }
      opts.onRead?.(records.length);
    },
  });
  return journal;
}

export const emptyJournal = (chunkBytes?: number): SessionJournal => ({
  sessions: new Map(),
  arena: new ByteArena(chunkBytes),
  records: 0,
});

/** Files one record of a session, after the session's earlier ones. */
export function fileRecord(journal: SessionJournal, sessionId: string, bytes: Uint8Array): void {
  const position = journal.arena.append(bytes);
  const refs = journal.sessions.get(sessionId);
  if (refs) refs.push(position, bytes.length);
  else journal.sessions.set(sessionId, [position, bytes.length]);
  journal.records++;
}
