// A backlog whose events would not fit one producer request: the transactor sends them in several
// requests of one transaction instead of retrying a request the broker always refuses (a livelock
// seen in the ingest benchmark). Real broker, real Cassandra, the host in this process.

import { randomUUID } from "node:crypto";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ACTORS_GROUP, createSessionHost, sessionSnapshots } from "../../../src/entities/session.ts";
import { kafkajs } from "../../../src/kafka/client.ts";
import { MAX_REQUEST_BYTES } from "../../../src/kafka/request-size.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../../src/kafka/topics.ts";
import { createSnapshotTable } from "../../../src/store/snapshots.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { stateOn, waitFor } from "../../support/actor-host.ts";
import { codecs } from "../../support/codecs.ts";
import { createSessionCommand, drivenService, observedTransfer } from "../../support/driven-service.ts";

const fx = drivenService();

describe("a batch too large for one produce request", () => {
  it("goes out in one transaction of several requests, and every transfer of a 4,000-deposit backlog is applied exactly once", {
    timeout: 240_000,
  }, async () => {
    const id = randomUUID();
    const create = createSessionCommand(id);
    const before = await stableEndOffsets(fx.service.kafka, TOPIC.sessionEvents);
    // The session exists before its transfers arrive, as in the service (the indexer watches only
    // burners of created sessions). A host holding both a CreateSession and transfers for it in its
    // backlog may take the chain.transfers batch first, and would rightly refuse them as
    // session_not_found: so one host creates the session and stops, then the backlog is written.
    const creator = createSessionHost({
      codecs,
      kafka: fx.service.kafka,
      snapshots: sessionSnapshots(createSnapshotTable(fx.service.cassandra)),
      log: pino({ level: "warn" }),
      snapshotEvery: 1_000_000,
    });
    await creator.start();
    try {
      await fx.producer.send(TOPIC.sessionCommands, [
        { key: id, value: codecs.sessionCommand.encode(create) },
      ]);
      await waitFor("the session to be created", () => stateOn(creator, id), 60_000);
    } finally {
      await creator.stop();
    }
    // Written while no host runs, so the host's first fetch of the partition holds ~1 MiB of them.
    const transfers = Array.from({ length: 4000 }, () =>
      observedTransfer(id, { burner: create.data.burner as string, blockNumber: 9n }),
    );
    for (let i = 0; i < transfers.length; i += 500) {
      await fx.producer.send(
        TOPIC.chainTransfers,
        transfers.slice(i, i + 500).map((t) => ({ key: id, value: codecs.transferObserved.encode(t) })),
      );
    }

    const lines: Array<{ msg?: string }> = [];
    const host = createSessionHost({
      codecs,
      kafka: fx.service.kafka,
      snapshots: sessionSnapshots(createSnapshotTable(fx.service.cassandra)),
      log: pino({ level: "debug" }, { write: (line: string) => lines.push(JSON.parse(line)) }),
      snapshotEvery: 1_000_000,
    });
    await host.start();
    try {
      // Well inside the test's own timeout, so a slow run fails here with what the host was doing.
      const version = await waitFor(
        "every transfer",
        () => {
          const version = stateOn(host, id)?.version ?? 0;
          return version >= 4001 ? version : undefined;
        },
        150_000,
        200,
      ).catch(() => stateOn(host, id)?.version ?? 0);
      if (version < 4001) {
        // What the host was doing, for a run that stalls: its partitions, the log messages it wrote
        // (counted), how far the input topics go and how far the actors group committed.
        const admin = kafkajs(fx.service.kafka).admin();
        await admin.connect();
        const committed = await admin.fetchOffsets({
          groupId: ACTORS_GROUP,
          topics: [TOPIC.chainTransfers, TOPIC.sessionCommands],
        });
        await admin.disconnect();
        const said = new Map<string, number>();
        for (const l of lines) said.set(l.msg ?? "?", (said.get(l.msg ?? "?") ?? 0) + 1);
        const diagnosis = {
          owned: host.owned(),
          restored: await host.restored(1),
          said: Object.fromEntries(said),
          transfersEnd: Object.fromEntries(
            [...(await stableEndOffsets(fx.service.kafka, TOPIC.chainTransfers))].map(([p, o]) => [
              p,
              `${o}`,
            ]),
          ),
          committed: committed.map((t) => ({
            topic: t.topic,
            offsets: t.partitions.map((p) => `${p.partition}:${p.offset}`).join(" "),
          })),
        };
        expect.fail(`stalled at version ${version}: ${JSON.stringify(diagnosis)}`);
      }
    } finally {
      await host.stop();
    }

    const seen = new Map<string, number>();
    // A transaction's records sit at consecutive offsets, its commit marker after them: the largest
    // run of consecutive records is the largest transaction, which must have needed several requests.
    let run = { partition: -1, next: -1n, bytes: 0 };
    let largestTransaction = 0;
    await readTopic(fx.service.kafka, {
      topic: TOPIC.sessionEvents,
      from: before,
      onBatch: (records) => {
        for (const r of records) {
          if (!r.value) continue;
          if (r.partition !== run.partition || r.offset !== run.next)
            run = { partition: r.partition, next: 0n, bytes: 0 };
          run.next = r.offset + 1n;
          run.bytes += r.value.length;
          largestTransaction = Math.max(largestTransaction, run.bytes);
          const e = codecs.sessionEvent.decode(r.value);
          if (e.metadata.sessionId !== id || e.type !== "DepositObserved") continue;
          const key = e.data.transfer.txHash;
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }
      },
    });
    expect(seen.size).toBe(4000);
    expect([...seen.values()].every((n) => n === 1)).toBe(true);
    expect(largestTransaction).toBeGreaterThan(MAX_REQUEST_BYTES);
  });
});
