// The node's disk: a litesvm snapshot, an append-only block log (one JSON line per block that holds
// transactions) and state.json, the commit point naming the snapshot, the slot and the blockhash queue.
// A block line whose slot is past state.json's slot was written by a run that died before committing:
// it is dropped on load, so the log never claims a transaction the snapshot does not hold.
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import path from "node:path";
import type { LiteSVM } from "litesvm";
import type { Block } from "./chain.ts";

export interface StoredState {
  slot: number;
  genesisHash: string;
  snapshot: string;
  /** The recent blockhashes, oldest first (the queue clients' blockhashes are checked against). */
  blockhashes: { slot: number; hash: string }[];
  transactionCount: number;
}

export function createStore(dir: string) {
  mkdirSync(dir, { recursive: true });
  const stateFile = path.join(dir, "state.json");
  const blockLog = path.join(dir, "blocks.jsonl");

  return {
    dir,
    load(): { state: StoredState; blocks: Block[]; snapshotPath: string } | null {
      if (!existsSync(stateFile)) return null;
      const state = JSON.parse(readFileSync(stateFile, "utf8")) as StoredState;
      const lines = existsSync(blockLog) ? readFileSync(blockLog, "utf8").split("\n") : [];
      const blocks: Block[] = [];
      let dropped = false;
      for (const line of lines) {
        if (!line) continue;
        let block: Block;
        try {
          block = JSON.parse(line) as Block;
        } catch {
          dropped = true; // a torn last line
          continue;
        }
        if (block.slot > state.slot) dropped = true;
        else blocks.push(block);
      }
      if (dropped) writeFileSync(blockLog, blocks.map((b) => `${JSON.stringify(b)}\n`).join(""));
      return { state, blocks, snapshotPath: path.join(dir, state.snapshot) };
    },

    /** Appends the closed block (if any), snapshots the runtime when it changed, then commits state.json. */
    commit(
      svm: LiteSVM,
      state: Omit<StoredState, "snapshot">,
      block: Block | null,
      previous: string | null,
    ): string {
      let snapshot = previous;
      if (block) {
        appendFileSync(blockLog, `${JSON.stringify(block)}\n`);
        snapshot = `svm-${block.slot}.bin`;
        svm.saveToFile(path.join(dir, snapshot));
      }
      if (!snapshot) {
        snapshot = `svm-${state.slot}.bin`;
        svm.saveToFile(path.join(dir, snapshot));
      }
      const tmp = `${stateFile}.tmp`;
      writeFileSync(tmp, JSON.stringify({ ...state, snapshot } satisfies StoredState));
      renameSync(tmp, stateFile);
      if (previous && previous !== snapshot) rmSync(path.join(dir, previous), { force: true });
      return snapshot;
    },
  };
}
export type Store = ReturnType<typeof createStore>;
