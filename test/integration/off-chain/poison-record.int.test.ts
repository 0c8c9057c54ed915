// A poison record never stops a partition: the generic host runs the test tally entity on the real
// broker with a journal codec that cannot encode one amount (13), as a real codec refuses a value
// its schema cannot hold. One such record among 1,000 inputs is parked on a dead-letter topic (its
// bytes, headers, error, topic, partition and offset, in the transaction that commits past it),
// every other record is applied exactly once, and the records after it in its partition go on.
// Re-driven while the cause remains, it is parked again; re-driven after the fix, it is applied.
// Scratch topics test.poison.*, new ones per run.
import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { createEntityHost } from "../../../src/actors/host/index.ts";
import { createSnapshotStore } from "../../../src/actors/snapshots.ts";
import { kafkajs } from "../../../src/kafka/client.ts";
import { AlreadyRedriven, listParked, redrive } from "../../../src/kafka/dead-letter.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { ensureTopics, stableEndOffsets } from "../../../src/kafka/topics.ts";
import { createSnapshotTable } from "../../../src/store/snapshots.ts";
import { TerminalError } from "../../../src/support/errors.ts";
import { waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { drivenService } from "../../support/driven-service.ts";
import {
  type TallyCommand,
  type TallyEvent,
  type TallyNotice,
  tallyEntity,
} from "../../support/tally-entity.ts";

const fx = drivenService();
const PARTITIONS = 4;
// 27 opens + 27 × 36 adds + 1 poison = 1,000 inputs.
const TALLIES = 27;
const ADDS_EACH = 36;
const POISON = 13;

describe("a poison record on the entity host", () => {
  it("is parked with its origin and error, every other record is applied once, and it can be re-driven", {
    timeout: 120_000,
  }, async () => {
    const run = randomUUID().slice(0, 8);
    const topics = {
      commands: `test.poison.${run}.commands`,
      events: `test.poison.${run}.events`,
      notices: `test.poison.${run}.notices`,
    };
    const dead = `test.poison.${run}.deadletter`;
    const { kafka } = fx.service;
    await ensureTopics(kafka, [
      ...Object.values(topics).map((name) => ({
        name,
        partitions: PARTITIONS,
        cleanupPolicy: "delete" as const,
        retentionMs: 3_600_000,
      })),
      { name: dead, partitions: 1, cleanupPolicy: "delete", retentionMs: 3_600_000 },
    ]);
    let fixed = false;
    const base = tallyEntity(`poison-${run}`, topics);
    const entity = {
      ...base,
      journal: {
        ...base.journal,
        encode: (e: TallyEvent) => {
          if (!fixed && e.type === "Added" && e.data.amount === POISON)
            throw new TerminalError("encode_failed", `an amount of ${POISON} cannot be encoded`);
          return base.journal.encode(e);
        },
      },
    };
    const host = createEntityHost(entity, {
      codecs,
      kafka,
      snapshots: createSnapshotStore(createSnapshotTable(fx.service.cassandra), entity),
      log: pino({ level: "silent" }),
      snapshotEvery: 10_000,
      deadLetterTopic: dead,
    });
    const total = (id: string) => {
      for (const p of host.owned()) {
        const s = host.statesOf(p)?.get(id);
        if (s) return s.total;
      }
      return undefined;
    };
    const meta = (commandId: string) => ({ commandId, issuedAt: Date.now() });
    const encode = (c: TallyCommand) => ({ key: c.data.id, value: Buffer.from(JSON.stringify(c)) });
    const ids = Array.from({ length: TALLIES }, (_, i) => `t${i}-${run}`);
    const adds = (k: number): TallyCommand[] =>
      ids.map((id) => ({ type: "Add", data: { id, amount: 1 }, metadata: meta(`add:${id}:${k}`) }));
    const victim = ids[3] ?? "";
    const poison = encode({ type: "Add", data: { id: victim, amount: POISON }, metadata: meta("poison") });

    await host.start();
    const producer = kafkajs(kafka).producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      await waitFor("the host to own every partition", () =>
        host.owned().length === PARTITIONS ? true : undefined,
      );
      const opens: TallyCommand[] = ids.map((id) => ({
        type: "Open",
        data: { id, threshold: ADDS_EACH, closeAt: Date.now() + 3_600_000 },
        metadata: meta(`open:${id}`),
      }));
      await fx.producer.send(topics.commands, opens.map(encode));
      // Half the adds before the poison record, half after: those after it in its partition (and of
      // its own tally) must still be applied.
      for (let k = 0; k < ADDS_EACH / 2; k++) await fx.producer.send(topics.commands, adds(k).map(encode));
      const [sent] = await producer.send({
        topic: topics.commands,
        acks: -1,
        messages: [{ ...poison, headers: { trace: "poison-1" } }],
      });
      for (let k = ADDS_EACH / 2; k < ADDS_EACH; k++)
        await fx.producer.send(topics.commands, adds(k).map(encode));
      const origin = {
        topic: topics.commands,
        partition: sent?.partition ?? -1,
        offset: Number(sent?.baseOffset),
      };

      await waitFor(
        "every tally to count its adds",
        () => (ids.every((id) => total(id) === ADDS_EACH) ? true : undefined),
        60_000,
      );
      const [parked, ...more] = await waitFor("the poison record parked", async () => {
        const found = await listParked(kafka, codecs.deadLetter, dead);
        return found.length > 0 ? found : undefined;
      });
      expect(more).toEqual([]);
      expect(parked?.letter).toMatchObject({
        kind: "parked",
        group: entity.group,
        ...origin,
        key: Buffer.from(victim).toString("base64"),
        value: poison.value.toString("base64"),
        headers: [{ name: "trace", value: Buffer.from("poison-1").toString("base64") }],
        errorCode: "encode_failed",
        errorMessage: `an amount of ${POISON} cannot be encoded`,
      });

      // Exactly once, read back as an outside read_committed consumer would.
      const events = await readAll<TallyEvent>(topics.events);
      expect(events).toHaveLength(999);
      for (const id of ids) {
        const versions = events.filter((e) => e.metadata.id === id).map((e) => e.metadata.version);
        expect(versions).toEqual(Array.from({ length: 1 + ADDS_EACH }, (_, v) => v + 1));
      }
      const notices = await readAll<TallyNotice>(topics.notices);
      expect(notices.map((n) => n.id).sort()).toEqual([...ids].sort());

      // Re-driven while the codec still refuses it: back on its topic once, and parked again there.
      const copy = await redrive(kafka, codecs.deadLetter, origin, dead);
      expect(copy).toBeGreaterThan(origin.offset);
      await expect(redrive(kafka, codecs.deadLetter, origin, dead)).rejects.toBeInstanceOf(AlreadyRedriven);
      const again = await waitFor("the re-driven copy parked again", async () => {
        const found = await listParked(kafka, codecs.deadLetter, dead);
        return found.find((p) => p.letter.offset === copy);
      });
      expect(again.letter).toMatchObject({ topic: origin.topic, partition: origin.partition });
      expect(
        (await listParked(kafka, codecs.deadLetter, dead)).find((p) => p.letter.offset === origin.offset)
          ?.redrivenTo,
      ).toBe(copy);

      // The cause fixed, the parked copy is re-driven and applied, once.
      fixed = true;
      await redrive(kafka, codecs.deadLetter, { ...origin, offset: copy }, dead);
      await waitFor("the poison amount applied", () =>
        total(victim) === ADDS_EACH + POISON ? true : undefined,
      );
      const after = await readAll<TallyEvent>(topics.events);
      expect(after.filter((e) => e.type === "Added" && e.data.amount === POISON)).toHaveLength(1);
      expect(after).toHaveLength(1000);
    } finally {
      await producer.disconnect();
      await host.stop();
    }

    async function readAll<T>(topic: string): Promise<T[]> {
      const out: T[] = [];
      await readTopic(kafka, {
        topic,
        from: new Map(Array.from({ length: PARTITIONS }, (_, p) => [p, 0n] as const)),
        until: await stableEndOffsets(kafka, topic),
        onBatch: (records) => {
          for (const r of records) if (r.value) out.push(JSON.parse(r.value.toString("utf8")) as T);
        },
      });
      return out;
    }
  });
});
