import { TOPIC } from "../../topics/catalogue.ts";
import type { SessionEvent } from "../domain/events.ts";
import { evolve } from "../domain/evolve.ts";
import type { Session } from "../domain/types.ts";
import type { KafkaClient } from "../kafka/client.ts";
import { sessionEventCodec } from "../kafka/codecs.ts";
import { readTopic } from "../kafka/topic-reader.ts";
import { stableEndOffsets } from "../kafka/topics.ts";
import type { SessionReadModel } from "./read-model.ts";

export interface ReplayProgress {
  /** Records read so far, and in all (the stable end offsets when the replay began). */
  read: number;
  total: number;
}

/**
 * Rebuilds session states from offset zero of session.events, in memory, at full speed. The
 * journal is the only input, so the result equals what the live projector wrote. `topic` names
 * another journal of SessionEvent records (a copy, or the replay benchmark's scratch topic).
 */
export async function replayStates(
  kafka: KafkaClient,
  opts: { onProgress?: (p: ReplayProgress) => void; signal?: AbortSignal; topic?: string } = {},
): Promise<{ states: Map<string, Session>; events: number }> {
  const topic = opts.topic ?? TOPIC.sessionEvents;
  const ends = await stableEndOffsets(kafka, topic);
  const total = [...ends.values()].reduce((a, b) => a + Number(b), 0);
  const states = new Map<string, Session>();
  let read = 0;
  let events = 0;
  await readTopic(kafka, {
    topic,
    from: new Map([...ends.keys()].map((p) => [p, 0n])),
    ...(opts.signal ? { signal: opts.signal } : {}),
    onBatch: (records) => {
      for (const r of records) {
        if (!r.value) continue;
        const event: SessionEvent = sessionEventCodec.decode(r.value);
        const id = event.metadata.sessionId;
        const before = states.get(id) ?? null;
        if (before && event.metadata.version <= before.version) continue;
        const after = evolve(before, event);
        if (after) states.set(id, after);
        events++;
      }
      read += records.length;
      opts.onProgress?.({ read, total });
    },
  });
  opts.onProgress?.({ read: total, total });
  return { states, events };
}

/** Replays the journal and writes every session's final state into the given read model table. */
export async function rebuildReadModel(
  kafka: KafkaClient,
  readModel: SessionReadModel,
  opts: { onProgress?: (p: ReplayProgress) => void; signal?: AbortSignal } = {},
): Promise<{ sessions: number; events: number }> {
  await readModel.ensureTable();
  const { states, events } = await replayStates(kafka, opts);
  await readModel.write([...states.values()]);
  return { sessions: states.size, events };
}
