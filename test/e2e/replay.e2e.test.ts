import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../deploy/local/chains.ts";
import { createSessionReadModel } from "../../src/projections/read-model.ts";
import { rebuildReadModel } from "../../src/projections/replay.ts";
import { json } from "../support/http.ts";
import { fund, newBurner, sessionBody } from "../support/payer.ts";
import { startTestService, type TestService } from "../support/service.ts";

const run = promisify(execFile);
let service: TestService;
const ids: string[] = [];

beforeAll(async () => {
  service = await startTestService({ env: { INDEXER_POLL_MS: "250" } });
  const [source, dest] = service.stack.chains as [LocalChain, LocalChain];
  // A few sessions of each kind, so the journal holds every event type this service writes today.
  for (let i = 0; i < 4; i++) {
    const burner = await newBurner(source);
    const res = await fetch(`${service.url}/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(sessionBody(burner, dest)),
    });
    const { id } = (await json(res)) as { id: string };
    ids.push(id);
    if (i % 2 === 0) await fund(source, burner.address, BigInt(1_000_000 * (i + 1)), "usdc");
  }
  const live = createSessionReadModel(service.cassandra);
  const deadline = Date.now() + 60_000;
  for (const id of ids.filter((_, i) => i % 2 === 0)) {
    while ((await live.get(id))?.view.status !== "detected") {
      if (Date.now() > deadline) throw new Error(`session ${id} was not detected in time`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
});
afterAll(async () => {
  await service?.stop();
});

describe("replay", () => {
  it("rebuilding the read model from offset zero gives exactly the live projection", async () => {
    const table = `sessions_replay_${Date.now()}`;
    const replayed = createSessionReadModel(service.cassandra, table);
    const result = await rebuildReadModel({
      kafka: { brokers: service.infra.brokers, clientId: "e2e.replay" },
      cassandra: service.infra.cassandra,
      table,
    });
    expect(result.sessions).toBeGreaterThanOrEqual(ids.length);
    const live = createSessionReadModel(service.cassandra);
    for (const id of ids) {
      const [a, b] = await Promise.all([live.get(id), replayed.get(id)]);
      expect(b).not.toBeNull();
      expect(b).toEqual(a);
    }
    // Every replayed session, not only this file's. The live projection may have moved on after the
    // replay read its end offsets (expiry timers keep running): a newer live version is fine, but at
    // the same version the two must be identical.
    const rs = await service.cassandra.execute(`SELECT id, version, view_json FROM ${table}`, [], {
      fetchSize: 1000,
    });
    const replayedRows: Array<{ id: string; version: number; view: unknown }> = [];
    for await (const row of rs) {
      replayedRows.push({
        id: row.get("id").toString(),
        version: row.get("version"),
        view: JSON.parse(row.get("view_json")),
      });
    }
    expect(replayedRows).toHaveLength(result.sessions);
    let same = 0;
    for (let i = 0; i < replayedRows.length; i += 64) {
      const chunk = replayedRows.slice(i, i + 64);
      const lives = await Promise.all(chunk.map((r) => live.get(r.id)));
      chunk.forEach((r, j) => {
        const l = lives[j];
        expect(l, `session ${r.id} is missing from the live projection`).not.toBeNull();
        if (!l) return;
        expect(l.version).toBeGreaterThanOrEqual(r.version);
        if (l.version === r.version) {
          expect({ id: r.id, view: l.view }).toEqual({ id: r.id, view: r.view });
          same++;
        }
      });
    }
    expect(same).toBeGreaterThan(0);
    await service.cassandra.execute(`DROP TABLE ${table}`);
  });

  it("the replay command shows progress and reports what it rebuilt", async () => {
    const table = `sessions_cli_${Date.now()}`;
    const { stdout } = await run("npx", ["tsx", "src/cli.ts", "replay", "--table", table], {
      env: { ...process.env, LOG_LEVEL: "warn" },
      timeout: 120_000,
    });
    expect(stdout).toMatch(/replayed \d+ events into \d+ sessions \(table sessions_cli_\d+\)/);
    await service.cassandra.execute(`DROP TABLE ${table}`);
  });
});
