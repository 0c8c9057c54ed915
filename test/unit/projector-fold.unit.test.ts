import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/domain/events.ts";
import type { Session } from "../../src/domain/types.ts";
import { sessionView } from "../../src/domain/view.ts";
import { relayerSpend } from "../../src/ops/metrics.ts";
import { createStateFolder } from "../../src/projections/projector.ts";
import type { SessionReadModel } from "../../src/projections/read-model.ts";
import { depositObserved, newSessionId, sessionCreated } from "../bench/workload.ts";

/** The read model's contract in memory: the newest version of each session wins. */
function memoryReadModel(): SessionReadModel & { rows: Map<string, Session> } {
  const rows = new Map<string, Session>();
  return {
    table: "memory",
    rows,
    async get(id) {
      const s = rows.get(id);
      return s ? { version: s.version, view: sessionView(s), state: s } : null;
    },
    async getView(id) {
      const s = rows.get(id);
      return s ? { version: s.version, view: sessionView(s) } : null;
    },
    async write(states) {
      for (const s of states) if ((rows.get(s.id)?.version ?? 0) < s.version) rows.set(s.id, s);
    },
    async ensureTable() {},
  };
}

const T0 = 1_790_000_000_000;
function journal(id: string, deposits: number): SessionEvent[] {
  return [
    sessionCreated(id, T0),
    ...Array.from({ length: deposits }, (_, i) => depositObserved(id, i + 2, T0 + i, 100 + i)),
  ];
}

describe("the projector's fold", () => {
  it("folds a batch into the final state of each session it touches", async () => {
    const a = newSessionId();
    const b = newSessionId();
    const folder = createStateFolder(memoryReadModel());
    const { states } = await folder.fold([...journal(a, 3), ...journal(b, 1)]);
    expect(states.map((s) => [s.id, s.version, s.deposits.length])).toEqual([
      [a, 4, 3],
      [b, 2, 1],
    ]);
  });

  it("a batch delivered again to the same projector changes nothing", async () => {
    const id = newSessionId();
    const readModel = memoryReadModel();
    const folder = createStateFolder(readModel);
    const events = journal(id, 2);
    const first = await folder.fold(events);
    await readModel.write(first.states);
    first.commit();
    expect((await folder.fold(events)).states).toEqual([]);
  });

  it("a batch written before a restart and delivered again writes nothing (the stored state has it)", async () => {
    const id = newSessionId();
    const readModel = memoryReadModel();
    const events = journal(id, 2);
    await readModel.write((await createStateFolder(readModel).fold(events)).states);
    const restarted = createStateFolder(readModel); // an empty cache, as after a restart
    const again = await restarted.fold(events.slice(1)); // redelivered from the last committed offset
    expect(again.states).toEqual([]);
    expect(readModel.rows.get(id)?.version).toBe(3);
  });

  it("a session whose stored state is newer than the batch is never written older", async () => {
    const id = newSessionId();
    const readModel = memoryReadModel();
    const events = journal(id, 4);
    await readModel.write((await createStateFolder(readModel).fold(events)).states);
    const { states } = await createStateFolder(readModel).fold(events.slice(1, 3));
    expect(states).toEqual([]);
    expect(readModel.rows.get(id)?.version).toBe(5);
  });

  it("counts the relayer's spend in USDC base units per chain, once per written batch; an event without a cost adds nothing", async () => {
    const id = newSessionId();
    const spent = (version: number, chainId: number, cost: bigint | null): SessionEvent => ({
      type: "RelayerGasSpent",
      data: {
        chainId,
        txHash: `tx${version}`,
        commandId: `cmd${version}`,
        gasUsed: 1n,
        feeWei: 10_000n,
        cost,
      },
      metadata: { sessionId: id, version, occurredAt: T0, commandId: `c${version}` },
    });
    const total = async (chainId: number) =>
      (await relayerSpend.get()).values.find((v) => v.labels.chain_id === String(chainId))?.value ?? 0;
    const before = [await total(31337), await total(792703810)];
    const folder = createStateFolder(memoryReadModel());
    const batch = await folder.fold([
      sessionCreated(id, T0),
      spent(2, 31337, 300_000n),
      spent(3, 792703810, 1_500n),
      spent(4, 792703810, null),
    ]);
    // Not counted before the batch is written.
    expect(await total(31337)).toBe(before[0]);
    batch.commit();
    expect([await total(31337), await total(792703810)]).toEqual([
      (before[0] ?? 0) + 300_000,
      (before[1] ?? 0) + 1_500,
    ]);
  });
});
