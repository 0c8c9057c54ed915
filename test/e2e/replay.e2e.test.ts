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
    const result = await rebuildReadModel(service.kafka, replayed);
    expect(result.sessions).toBeGreaterThanOrEqual(ids.length);
    const live = createSessionReadModel(service.cassandra);
    for (const id of ids) {
      const [a, b] = await Promise.all([live.get(id), replayed.get(id)]);
      expect(b).not.toBeNull();
      expect(b).toEqual(a);
    }
    // Every replayed session, not only this file's: the whole table must agree with the live one.
    const rows = await service.cassandra.execute(`SELECT id, version, view_json FROM ${table}`);
    let compared = 0;
    for (const row of rows.rows) {
      const liveRow = await live.get(row.get("id").toString());
      expect({ id: row.get("id").toString(), version: liveRow?.version, view: liveRow?.view }).toEqual({
        id: row.get("id").toString(),
        version: row.get("version"),
        view: JSON.parse(row.get("view_json")),
      });
      compared++;
    }
    expect(compared).toBe(result.sessions);
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
