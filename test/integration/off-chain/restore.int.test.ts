// Restore of the actor host on the real servers: states rebuilt from the latest snapshots plus the
// journal tail equal those rebuilt from the journal alone (and those the live host held), and an
// expiry timer that came due while no host ran still fires, once. Hosts run in this process.

import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import type { SessionCommand } from "../../../src/domain/commands.ts";
import type { SessionEvent } from "../../../src/domain/events.ts";
import type { Session } from "../../../src/domain/types.ts";
import { createSessionHost, type SessionHost, sessionSnapshots } from "../../../src/entities/session.ts";
import { stateToJson } from "../../../src/entities/session-json.ts";
import { kafkajs } from "../../../src/kafka/client.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../../src/kafka/topics.ts";
import type { TransferObserved } from "../../../src/records/chain-transfers.ts";
import { createSnapshotTable } from "../../../src/store/snapshots.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { stateOn, waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { createSessionCommand, drivenService, observedTransfer } from "../../support/driven-service.ts";

const HOUR = 3_600_000;
const nowSeconds = () => Math.floor(Date.now() / 1000);

const fx = drivenService();

interface RunningHost {
  host: SessionHost;
  /** The host's "partition restored" log lines. */
  restores(): Array<{ partition: number; fromSnapshot: boolean; replayed: number; sessions: number }>;
  /** A copy of every partition's session states. */
  states(): Map<number, Map<string, Session>>;
  stateOf(id: string): Session | undefined;
  stop(): Promise<void>;
}

/**
 * An actor host in group "actors", returned once it owns and has restored every partition (or, with
 * `sharing`, some: another host holds the rest).
 */
async function startHost(opts: {
  snapshotEvery: number;
  timerIntervalMs: number;
  sharing?: boolean;
}): Promise<RunningHost> {
  const { sharing, ...hostOpts } = opts;
  const lines: Array<Record<string, unknown>> = [];
  const log = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const host = createSessionHost({
    codecs,
    kafka: fx.service.kafka,
    snapshots: sessionSnapshots(createSnapshotTable(fx.service.cassandra)),
    log,
    ...hostOpts,
  });
  await host.start();
  const partitions = fx.service.config.SESSION_PARTITIONS;
  await waitFor("the host to restore its partitions", () =>
    (sharing ? host.owned().length > 0 : host.owned().length === partitions) ? true : undefined,
  );
  return {
    host,
    restores: () =>
      lines
        .filter((l) => l.msg === "partition restored")
        .map((l) => ({
          partition: l.partition as number,
          fromSnapshot: l.fromSnapshot as boolean,
          replayed: l.replayed as number,
          sessions: l.entities as number,
        })),
    states() {
      const all = new Map<number, Map<string, Session>>();
      for (const p of host.owned()) all.set(p, new Map(host.statesOf(p)) as Map<string, Session>);
      return all;
    },
    stateOf: (id) => stateOn(host, id),
    stop: () => host.stop(),
  };
}

/** Input records of the actors group not yet committed. */
async function actorsLag(): Promise<bigint> {
  const admin = kafkajs(fx.service.kafka).admin();
  await admin.connect();
  try {
    let lag = 0n;
    for (const topic of [TOPIC.sessionCommands, TOPIC.chainTransfers]) {
      const ends = await admin.fetchTopicOffsets(topic);
      const [group] = await admin.fetchOffsets({ groupId: "actors", topics: [topic] });
      for (const e of ends) {
        const c = BigInt(group?.partitions.find((p) => p.partition === e.partition)?.offset ?? "-1");
        lag += BigInt(e.high) - (c >= 0n ? c : BigInt(e.low));
      }
    }
    return lag;
  } finally {
    await admin.disconnect();
  }
}
const settled = () =>
  waitFor("the actors to commit all input", async () => ((await actorsLag()) === 0n ? true : undefined));

const createCommand = (id: string, expiresAt: number): SessionCommand =>
  createSessionCommand(id, { appFeeBps: 25, expiresAt });
const transfer = (sessionId: string, amount: bigint): TransferObserved =>
  observedTransfer(sessionId, { amount });

const sendCommands = (commands: SessionCommand[]) =>
  fx.producer.send(
    TOPIC.sessionCommands,
    commands.map((c) => ({ key: c.data.sessionId, value: codecs.sessionCommand.encode(c) })),
  );
const sendTransfers = (transfers: TransferObserved[]) =>
  fx.producer.send(
    TOPIC.chainTransfers,
    transfers.map((t) => ({ key: t.sessionId, value: codecs.transferObserved.encode(t) })),
  );

const replayedOf = (restores: Array<{ replayed: number }>) => restores.reduce((n, r) => n + r.replayed, 0);

/** JSON with sorted keys and bigint as text: equal states give equal strings. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v) => {
    if (typeof v === "bigint") return `${v}n`;
    if (v && typeof v === "object" && !Array.isArray(v))
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)));
    return v;
  });
}

/** Sessions whose state differs between two restores, or exists in one only ("partition:id"). */
function differences(a: Map<number, Map<string, Session>>, b: Map<number, Map<string, Session>>): string[] {
  const out: string[] = [];
  for (const p of new Set([...a.keys(), ...b.keys()])) {
    const left = a.get(p) ?? new Map<string, Session>();
    const right = b.get(p) ?? new Map<string, Session>();
    for (const id of new Set([...left.keys(), ...right.keys()])) {
      const l = left.get(id);
      const r = right.get(id);
      // stateToJson first (fast); key order could differ without the states differing, so a
      // mismatch is confirmed on the key-sorted form.
      if (!l || !r || (stateToJson(l) !== stateToJson(r) && canonical(l) !== canonical(r)))
        out.push(`${p}:${id}`);
    }
  }
  return out;
}

describe("restore", () => {
  it("gives identical states from the latest snapshots plus the journal tail and from the journal alone", async () => {
    const t0 = Date.now();
    const mark = (label: string) => console.log(`[${((Date.now() - t0) / 1000).toFixed(1)} s] ${label}`);
    // Timers stay quiet in this test (an expiry firing between two restores would change the
    // journal), and the host takes no snapshot of its own: the test takes it, at a point it knows.
    const quiet = { snapshotEvery: 1_000_000_000, timerIntervalMs: HOUR };
    const first = await startHost(quiet);
    mark("first host restored");
    const partitions = Array.from({ length: fx.service.config.SESSION_PARTITIONS }, (_, p) => p);

    const ids = Array.from({ length: 300 }, () => randomUUID());
    await sendCommands(ids.map((id) => createCommand(id, nowSeconds() + 24 * 3600)));
    await settled();
    for (const [wave, sessions] of [ids, ids].entries()) {
      await sendTransfers(sessions.map((id, i) => transfer(id, BigInt(wave * 1000 + i + 1))));
      await settled();
    }
    // A snapshot of every partition through the host's snapshot store: the live states, as of the
    // end of the journal (all input is committed, nothing else writes to it meanwhile).
    const ends = await stableEndOffsets(fx.service.kafka, TOPIC.sessionEvents);
    const snapshots = sessionSnapshots(createSnapshotTable(fx.service.cassandra));
    for (const [partition, states] of first.states()) {
      const eventsOffset = (ends.get(partition) ?? 0n) - 1n;
      await snapshots.save(partition, { eventsOffset, states: states.values(), count: states.size });
    }
    mark("snapshots of every partition saved");
    // The journal tail after the snapshots: a third transfer for 60 of the sessions.
    await sendTransfers(ids.slice(0, 60).map((id, i) => transfer(id, BigInt(2000 + i + 1))));
    await settled();
    // The "actors" group is shared: a member that joined meanwhile would hold some of the states.
    expect(first.host.owned(), "this host still owns every partition").toEqual(partitions);
    const live = first.states();
    await first.stop();
    mark("first host processed 300 sessions and 660 transfers, then stopped");
    const mine = [...live.values()].flatMap((m) => ids.flatMap((id) => m.get(id) ?? []));
    expect(mine.map((s) => s.version).sort()).toEqual(ids.map((_, i) => (i < 60 ? 4 : 3)).sort());

    const fromSnapshots = await startHost(quiet);
    const a = fromSnapshots.states();
    const restoresA = fromSnapshots.restores();
    await fromSnapshots.stop();
    mark(`restored from snapshots + tail: ${replayedOf(restoresA)} events replayed`);

    // Every snapshot row of the actors' partitions (other partition numbers belong to other tests).
    await fx.service.cassandra.execute(
      "DELETE FROM entity_snapshots WHERE entity = 'session' AND partition IN ?",
      [partitions],
    );
    const left = await fx.service.cassandra.execute(
      "SELECT partition FROM entity_snapshots WHERE entity = 'session' AND partition IN ?",
      [partitions],
    );
    expect(left.rows.length).toBe(0);
    const journalEnds = await stableEndOffsets(fx.service.kafka, TOPIC.sessionEvents);
    const fromJournal = await startHost(quiet);
    const b = fromJournal.states();
    const restoresB = fromJournal.restores();
    await fromJournal.stop();
    mark(`restored from the journal alone: ${replayedOf(restoresB)} events replayed`);

    // The two restores took the two paths...
    expect(restoresA.every((r) => r.fromSnapshot)).toBe(true);
    expect(replayedOf(restoresA)).toBeGreaterThanOrEqual(60); // the tail after the snapshots was read
    expect(restoresB.every((r) => !r.fromSnapshot)).toBe(true);
    expect(replayedOf(restoresB)).toBeGreaterThan(replayedOf(restoresA));
    // ...and arrived at the same states, which are those the live host held.
    expect([...a.values()].reduce((n, m) => n + m.size, 0)).toBeGreaterThanOrEqual(ids.length);
    expect(differences(a, b)).toEqual([]);
    expect(differences(a, live)).toEqual([]);
    mark("compared");
    // Snapshots back for the next hosts (of every suite), which would otherwise read the whole journal.
    for (const [partition, states] of b) {
      const eventsOffset = (journalEnds.get(partition) ?? 0n) - 1n;
      await snapshots.save(partition, { eventsOffset, states: states.values(), count: states.size });
    }
    // Restoring from the journal alone reads all of the shared session.events: minutes once it holds millions.
  }, 600_000);

  it("fires an expiry timer that came due while no host ran, and the session expires exactly once", async () => {
    const from = await stableEndOffsets(fx.service.kafka, TOPIC.sessionEvents);
    const first = await startHost({ snapshotEvery: 5000, timerIntervalMs: 200 });
    const expiresAt = nowSeconds() + 4;
    // `timer`: only the new host's timer can expire it. `requested`: the old host's command is also on
    // the topic already, as if it had been sent just before the host died.
    const timer = randomUUID();
    const requested = randomUUID();
    await sendCommands([createCommand(timer, expiresAt), createCommand(requested, expiresAt)]);
    await waitFor("both sessions to exist", () =>
      first.stateOf(timer) && first.stateOf(requested) ? true : undefined,
    );
    await first.stop();
    expect(nowSeconds()).toBeLessThan(expiresAt); // stopped before the timer could fire

    await sleep((expiresAt + 1) * 1000 - Date.now());
    await sendCommands([
      {
        type: "ExpireSession",
        data: { sessionId: requested, now: nowSeconds() },
        metadata: { commandId: `expire:${requested}`, issuedAt: Date.now(), replyTo: null },
      },
    ]);
    const second = await startHost({ snapshotEvery: 5000, timerIntervalMs: 200 });
    await waitFor("both sessions to expire", () =>
      second.stateOf(timer)?.status === "expired" && second.stateOf(requested)?.status === "expired"
        ? true
        : undefined,
    );
    await sleep(1500); // several more timer ticks: nothing more may happen
    await settled();
    await second.stop();

    const journal: SessionEvent[] = [];
    await readTopic(fx.service.kafka, {
      topic: TOPIC.sessionEvents,
      from,
      onBatch: (records) => {
        for (const r of records) {
          const e = r.value ? codecs.sessionEvent.decode(r.value) : null;
          if (e && (e.metadata.sessionId === timer || e.metadata.sessionId === requested)) journal.push(e);
        }
      },
    });
    for (const id of [timer, requested]) {
      const events = journal.filter((e) => e.metadata.sessionId === id);
      expect(events.map((e) => [e.type, e.metadata.version])).toEqual([
        ["SessionCreated", 1],
        ["SessionExpired", 2],
      ]);
    }
  });

  it("reports the partitions a later rebalance gives a host as restoring until each is restored", async () => {
    const partitions = fx.service.config.SESSION_PARTITIONS;
    const opts = { snapshotEvery: 5000, timerIntervalMs: 1000 };
    // Sessions on every partition, so each restore reads something.
    await sendCommands(Array.from({ length: 200 }, () => createCommand(randomUUID(), nowSeconds() + HOUR)));
    const a = await startHost(opts);
    expect(a.host.restoring()).toEqual([]);
    const b = await startHost({ ...opts, sharing: true });
    await waitFor("the two hosts to share every partition, restored", () =>
      a.host.owned().length + b.host.owned().length === partitions &&
      a.host.restoring().length + b.host.restoring().length === 0
        ? true
        : undefined,
    );
    const handedBack = b.host.owned();
    expect(handedBack.length).toBeGreaterThan(0);

    // b leaves: its partitions go back to a, which says so until its restore of each is done.
    const seen = new Set<number>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        for (const p of a.host.restoring()) seen.add(p);
        await new Promise((r) => setImmediate(r));
      }
    })();
    await b.stop();
    await waitFor("a to own every partition again", () =>
      a.host.owned().length === partitions ? true : undefined,
    );
    watching = false;
    await watch;
    expect([...seen].sort((x, y) => x - y)).toEqual(handedBack);
    expect(a.host.restoring()).toEqual([]);
    await settled();
    await a.stop();
  });
});
