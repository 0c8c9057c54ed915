import type { Session } from "../domain/types.ts";
import { StatesTally } from "./journal-fold.ts";
import type { StateSink } from "./journal-stream.ts";
import type { SessionReadModel } from "./read-model.ts";

/**
 * Adds the states up and keeps none (the benchmark's sink, and a check that two replays agree). It
 * cannot give a state back, so a session it was handed too early is refolded by the replay.
 */
export class SummarySink implements StateSink {
  readonly tally = new StatesTally();
  write(states: Session[]): void {
    for (const s of states) this.tally.add(s, 0);
  }
  retract(state: Session): void {
    this.tally.remove(state);
  }
}

/** Keeps every state in hand, the newer version winning: for callers that want the states themselves. */
export class CollectSink implements StateSink {
  readonly states = new Map<string, Session>();
  write(states: Session[]): void {
    for (const s of states) {
      const had = this.states.get(s.id);
      if (!had || had.version <= s.version) this.states.set(s.id, s);
    }
  }
  async load(ids: string[]): Promise<Map<string, Session>> {
    const found = new Map<string, Session>();
    for (const id of ids) {
      const s = this.states.get(id);
      if (s) found.set(id, s);
    }
    return found;
  }
}

/** A sessions read-model table: rows written with their version as the cell timestamp; states read back for a session seen again. */
export function readModelSink(model: SessionReadModel): StateSink {
  return {
    write: (states) => model.write(states),
    async load(ids) {
      const found = new Map<string, Session>();
      const rows = await Promise.all(ids.map((id) => model.get(id)));
      rows.forEach((row, i) => {
        if (row) found.set(ids[i] as string, row.state);
      });
      return found;
    },
  };
}
