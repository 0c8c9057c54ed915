// The generic host runs a second, test-only entity (test/support/tally-entity.ts) as configuration:
// its own topics, journal, outbox, timer and snapshot rows, on real Kafka and Cassandra. Restarted
// once, it must restore from its own snapshots and still send every notice exactly once.
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createEntityHost, type EntityHost } from "../../../src/actors/host/index.ts";
import { createSnapshotStore } from "../../../src/actors/snapshots.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../../src/kafka/topics.ts";
import { createSnapshotTable } from "../../../src/store/snapshots.ts";
import { waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { drivenService } from "../../support/driven-service.ts";
import {
  type Tally,
  type TallyCommand,
  type TallyEvent,
  type TallyNotice,
  type TallyState,
  tallyEntity,
} from "../../support/tally-entity.ts";

const fx = drivenService();
const PARTITIONS = 4;
const TALLIES = 40;
const ADDS_EACH = 10;

describe("a second entity on the same host", () => {
  it("keeps its own journal, outbox, timers and snapshots, exactly once across a restart", {
    timeout: 240_000,
  }, async () => {
    const run = randomUUID().slice(0, 8);
    const topics = {
      commands: `test.tally.${run}.commands`,
      events: `test.tally.${run}.events`,
      notices: `test.tally.${run}.notices`,
    };
    await ensureTopics(
      fx.service.kafka,
      Object.values(topics).map((name) => ({
        name,
        partitions: PARTITIONS,
        cleanupPolicy: "delete",
        retentionMs: 3_600_000,
      })),
    );
    const entity = tallyEntity(`tally-${run}`, topics);
    const table = createSnapshotTable(fx.service.cassandra);
    const restoredLines: Array<{ fromSnapshot: boolean }> = [];
    const startHost = async (): Promise<EntityHost<TallyState>> => {
      const log = pino(
        { level: "info" },
        {
          write: (line: string) => {
            const l = JSON.parse(line);
            if (l.msg === "partition restored") restoredLines.push(l);
          },
        },
      );
      const host = createEntityHost(entity, {
        codecs,
        kafka: fx.service.kafka,
        snapshots: createSnapshotStore(table, entity),
        log,
        snapshotEvery: 25,
        timerIntervalMs: 200,
      });
      await host.start();
      await waitFor("the host to own every partition", () =>
        host.owned().length === PARTITIONS ? true : undefined,
      );
      return host;
    };
    const stateOf = (host: EntityHost<TallyState>, id: string): Tally | undefined => {
      for (const p of host.owned()) {
        const s = host.statesOf(p)?.get(id);
        if (s) return s;
      }
      return undefined;
    };
    const send = (commands: TallyCommand[]) =>
      fx.producer.send(
        topics.commands,
        commands.map((c) => ({ key: c.data.id, value: Buffer.from(JSON.stringify(c)) })),
      );

    const ids = Array.from({ length: TALLIES }, (_, i) => `t${i}-${run}`);
    // Half close a few seconds from now (their timer fires while this test runs), half in an hour.
    const closeAt = (i: number) => Date.now() + (i % 2 === 0 ? 6_000 : 3_600_000);
    const meta = (commandId: string) => ({ commandId, issuedAt: Date.now() });

    const first = await startHost();
    try {
      await send(
        ids.map((id, i) => ({
          type: "Open",
          data: { id, threshold: ADDS_EACH, closeAt: closeAt(i) },
          metadata: meta(`open:${id}`),
        })),
      );
      const adds: TallyCommand[] = ids.flatMap((id) =>
        Array.from({ length: ADDS_EACH }, (_, k) => ({
          type: "Add" as const,
          data: { id, amount: 1 },
          metadata: meta(`add:${id}:${k}`),
        })),
      );
      await send(adds);
      // Re-published: the same command ids again, which must not count twice.
      await send(adds.filter((_, k) => k % 4 === 0));
      await waitFor("every tally to reach its threshold", () =>
        ids.every((id) => stateOf(first, id)?.total === ADDS_EACH) ? true : undefined,
      );
    } finally {
      await first.stop();
    }
    const snapshotRows = await Promise.all(
      Array.from({ length: PARTITIONS }, async (_, p) => {
        let n = 0;
        for await (const _chunk of table.chunks(entity.name, p)) n++;
        return n;
      }),
    );
    expect(snapshotRows.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

    restoredLines.length = 0;
    const second = await startHost();
    try {
      expect(restoredLines.some((l) => l.fromSnapshot)).toBe(true);
      for (const id of ids) expect(stateOf(second, id)?.total).toBe(ADDS_EACH);
      await waitFor(
        "the due tallies to be closed by their timer",
        () => (ids.every((id, i) => stateOf(second, id)?.closed === (i % 2 === 0)) ? true : undefined),
        60_000,
      );
    } finally {
      await second.stop();
    }

    // Exactly once, read back as an outside read_committed consumer would.
    const read = async <T>(topic: string): Promise<T[]> => {
      const out: T[] = [];
      const from = new Map(Array.from({ length: PARTITIONS }, (_, p) => [p, 0n] as const));
      await readTopic(fx.service.kafka, {
        topic,
        from,
        until: await stableEndOffsets(fx.service.kafka, topic),
        onBatch: (records) => {
          for (const r of records) if (r.value) out.push(JSON.parse(r.value.toString("utf8")) as T);
        },
      });
      return out;
    };
    const notices = await read<TallyNotice>(topics.notices);
    const expected = [
      ...ids.map((id) => `${id}:reached`),
      ...ids.filter((_, i) => i % 2 === 0).map((id) => `${id}:closed`),
    ].sort();
    expect(notices.map((n) => `${n.id}:${n.kind}`).sort()).toEqual(expected);

    const events = await read<TallyEvent>(topics.events);
    for (const id of ids) {
      const versions = events.filter((e) => e.metadata.id === id).map((e) => e.metadata.version);
      const closes = ids.indexOf(id) % 2 === 0 ? 1 : 0;
      expect(versions).toEqual(Array.from({ length: 1 + ADDS_EACH + closes }, (_, v) => v + 1));
    }
  });
});
