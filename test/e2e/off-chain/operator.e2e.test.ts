// The operator's tools on the local stack (docs/OPERATIONS.md), through /v1/operator/* and the CLI:
// a session's journal decoded with its offsets, a poison record parked and re-driven once, consumer
// lag per role, and a read model rebuilt beside the live one, switched to and back. One service.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalChain } from "../../../deploy/local/chains.ts";
import { kafkajs } from "../../../src/kafka/client.ts";
import { groupHasMembers } from "../../../src/kafka/group-offsets.ts";
import { readTopic } from "../../../src/kafka/topic-reader.ts";
import { stableEndOffsets } from "../../../src/kafka/topics.ts";
import { runOperatorCli } from "../../../src/operator/cli.ts";
import { createSessionReadModel } from "../../../src/projections/read-model.ts";
import { projectedTables, projectorGroup } from "../../../src/projections/read-model-control.ts";
import { readModelControlStore } from "../../../src/store/read-model-control.ts";
import { TOPIC } from "../../../topics/catalogue.ts";
import { json } from "../../support/http.ts";
import { newBurner, sessionBody } from "../../support/payer.ts";
import { startTestService, type TestService } from "../../support/service.ts";

const SECRET = `op-${randomUUID()}-${randomUUID()}`;
let service: TestService;
let created: string;

const op = (path: string, init: { method?: string; body?: unknown; secret?: string } = {}) =>
  fetch(`${service.url}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      authorization: `Bearer ${init.secret ?? SECRET}`,
      ...(init.body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

async function createSession(): Promise<string> {
  const [source, dest] = service.stack.chains as [LocalChain, LocalChain];
  const res = await fetch(`${service.url}/sessions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(sessionBody(await newBurner(source), dest)),
  });
  expect(res.status).toBe(200);
  return ((await json(res)) as { id: string }).id;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runOperatorCli(
    argv,
    { GATEWAY_URL: service.url, OPERATOR_SECRET: SECRET },
    { stdout: (s) => (out += s), stderr: (s) => (err += s) },
  );
  return { code, out, err };
}

beforeAll(async () => {
  service = await startTestService({
    roles: ["actors", "projector", "gateway"],
    env: {
      OPERATOR_SECRET: SECRET,
      // The journal case waits for this session's expiry: a second event.
      SESSION_TTL_SECONDS: "10",
      READ_MODEL_POLL_MS: "200",
      // Every GET reads the active table: what the switch case looks at.
      SESSION_CACHE_TTL_MS: "0",
    },
  });
  created = await createSession();
}, 60_000);
afterAll(async () => {
  // Whatever a failed case left, the files after this one find `sessions` active and written: a
  // retired table's projector group resumes where it stopped, so following it again loses nothing.
  if (service) {
    const control = readModelControlStore(service.cassandra);
    const now = await control.read();
    if (now.active !== "sessions" || now.following.length > 0) {
      const retired = [...new Set([...now.retired, ...projectedTables(now)])].filter((t) => t !== "sessions");
      await control.write(now, { active: "sessions", following: [], retired, version: now.version + 1 });
    }
  }
  await service?.stop();
});

describe("the operator routes", () => {
  it("answer 401 JSON without the secret or with a wrong one, before reading a body", async () => {
    const none = await fetch(`${service.url}/v1/operator/lag`);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe("Bearer");
    expect(await json(none)).toEqual({ error: "missing operator secret" });
    const wrong = await op("/v1/operator/dead-letters/redrive", {
      body: { nonsense: true },
      secret: `${SECRET}x`,
    });
    expect([wrong.status, await json(wrong)]).toEqual([401, { error: "invalid operator secret" }]);
  });

  it("park a poison record and re-drive it to its topic exactly once", async () => {
    const key = randomUUID();
    const poison = Buffer.from(`not a SessionCommand ${key}`);
    const producer = kafkajs(service.kafka).producer();
    await producer.connect();
    const [sent] = await producer.send({ topic: TOPIC.sessionCommands, messages: [{ key, value: poison }] });
    await producer.disconnect();
    const partition = sent?.partition as number;
    const offset = Number(sent?.baseOffset);
    const keyB64 = Buffer.from(key).toString("base64");
    type Letter = {
      topic: string;
      partition: number;
      offset: number;
      key: string;
      redriven_to: number | null;
    };
    const listed = async () =>
      (
        (await json(await op(`/v1/operator/dead-letters?topic=${TOPIC.sessionCommands}`))) as {
          data: Letter[];
        }
      ).data;
    const letter = await until("the poison record parked", async () =>
      (await listed()).find((l) => l.key === keyB64 && l.offset === offset),
    );
    expect(letter).toMatchObject({
      partition,
      redriven_to: null,
      group: "actors",
      value_bytes: poison.length,
    });

    const first = await cli(
      "redrive",
      "--topic",
      TOPIC.sessionCommands,
      "--partition",
      String(partition),
      "--offset",
      String(offset),
    );
    expect(first.code, first.err).toBe(0);
    const copy = (JSON.parse(first.out) as { redriven_to: number }).redriven_to;
    expect(copy).toBeGreaterThan(offset);
    // Again: refused, whether through the route or the CLI, and nothing is sent.
    const again = await op("/v1/operator/dead-letters/redrive", {
      body: { topic: TOPIC.sessionCommands, partition, offset },
    });
    expect(again.status).toBe(409);
    expect(((await json(again)) as { error: string }).error).toContain(`to offset ${copy}`);
    expect(
      (
        await cli(
          "redrive",
          "--topic",
          TOPIC.sessionCommands,
          "--partition",
          `${partition}`,
          "--offset",
          `${offset}`,
        )
      ).code,
    ).toBe(1);
    const missing = await op("/v1/operator/dead-letters/redrive", {
      body: { topic: TOPIC.sessionCommands, partition, offset: offset + 1_000_000 },
    });
    expect(missing.status).toBe(404);

    // The copy still cannot be read, so it is parked again under its own offset: it reached the actors once.
    const reparked = await until("the copy parked again", async () =>
      (await listed()).find((l) => l.key === keyB64 && l.offset === copy),
    );
    expect(reparked.redriven_to).toBeNull();
    expect((await listed()).find((l) => l.offset === offset && l.key === keyB64)?.redriven_to).toBe(copy);
    // On the source partition: the original and exactly one copy.
    let copies = 0;
    await readTopic(service.kafka, {
      topic: TOPIC.sessionCommands,
      from: new Map([[partition, BigInt(offset)]]),
      until: new Map([
        [partition, (await stableEndOffsets(service.kafka, TOPIC.sessionCommands)).get(partition) ?? 0n],
      ]),
      onBatch: (records) => {
        for (const r of records) if (r.value?.equals(poison)) copies++;
      },
    });
    expect(copies).toBe(2);
  });

  it("give the consumer lag of every role's groups, per partition", async () => {
    const res = await op("/v1/operator/lag");
    expect(res.status).toBe(200);
    type Lag = {
      roles: Array<{
        role: string;
        lag: number;
        groups: Array<{
          group: string;
          topics: Array<{ topic: string; partitions: Array<Record<string, number | null>> }>;
        }>;
      }>;
    };
    const { roles } = (await json(res)) as Lag;
    expect(roles.map((r) => r.role)).toEqual(
      expect.arrayContaining(["actors", "projector", "executor", "webhooks", "indexer"]),
    );
    const actors = roles.find((r) => r.role === "actors")?.groups.find((g) => g.group === "actors");
    expect(actors?.topics.map((t) => t.topic)).toEqual([
      TOPIC.sessionCommands,
      TOPIC.chainTransfers,
      TOPIC.executorResults,
    ]);
    const projector = roles.find((r) => r.role === "projector")?.groups[0];
    const events = projector?.topics[0];
    expect(events?.topic).toBe(TOPIC.sessionEvents);
    const ends = await stableEndOffsets(service.kafka, TOPIC.sessionEvents);
    expect(events?.partitions).toHaveLength(ends.size);
    for (const p of events?.partitions ?? []) {
      expect(p.lag).toBe((p.end as number) - ((p.committed as number | null) ?? 0));
      expect(p.lag).toBeGreaterThanOrEqual(0);
    }
    // The projector this process runs has read what the journal held when the answer was made.
    expect(events?.partitions.filter((p) => (p.end as number) > 0).every((p) => p.committed !== null)).toBe(
      true,
    );
  });
});

describe("read models", () => {
  type Models = { active: string; following: string[]; retired: string[]; read_by_this_gateway: string };
  const models = async (): Promise<Models> => (await json(await op("/v1/operator/read-models"))) as Models;
  const post = async (path: string, table: string) =>
    op(`/v1/operator/read-models${path}`, { body: { table } });
  /** A rebuild of a table whose projector has just been stopped waits for its group to be left. */
  const build = (table: string) =>
    until(`rebuild of ${table}`, async () => {
      const res = await post("", table);
      if (res.status === 409 && ((await json(res)) as { error: string }).error.includes("members"))
        return undefined;
      return res;
    });

  it("replays into a new table beside the live one, switches the gateways to it, and back", async () => {
    const start = await models();
    const live = start.active;
    expect(start.read_by_this_gateway).toBe(live);
    const table = `sessions_op_${Date.now()}`;

    const built = await build(table);
    expect(built.status).toBe(200);
    const result = (await json(built)) as { sessions: number; events: number; read_models: Models };
    expect(result.sessions).toBeGreaterThanOrEqual(1);
    expect(result.read_models).toMatchObject({ active: live, following: [...start.following, table] });
    const replayed = createSessionReadModel(service.cassandra, table);
    const liveModel = createSessionReadModel(service.cassandra, live);
    expect((await replayed.get(created))?.state.id).toBe(created);

    // Refused: the same table again, a table this service does not own, a bad name, the live one.
    expect((await post("", table)).status).toBe(409);
    expect((await post("", "merchants")).status).toBe(409);
    expect((await post("", "Bad-Name")).status).toBe(400);
    expect((await post("/retire", live)).status).toBe(409);
    expect((await post("/switch", "sessions_never_built")).status).toBe(404);

    // A session created now reaches both: the new table follows on from where its replay stopped.
    const during = await createSession();
    await until("the new table follows the journal", async () => (await replayed.get(during)) ?? undefined);
    await until("the live table has it too", async () => (await liveModel.get(during)) ?? undefined);
    // The same state in both at the same version (the session may expire between the two reads).
    const [inLive, inNew] = await Promise.all([liveModel.get(during), replayed.get(during)]);
    if (inLive?.version === inNew?.version) expect(inLive?.state).toEqual(inNew?.state);

    const switched = (await json(await post("/switch", table))) as Models;
    expect(switched).toMatchObject({
      active: table,
      following: [...start.following, live],
      read_by_this_gateway: table,
    });
    // The previous table stops being written; a session created now exists in the new table alone,
    // and the gateway answers it: it reads the new table.
    // Retire answers once no projector writes the table any more.
    expect(((await json(await post("/retire", live))) as Models).retired).toContain(live);
    expect(await groupHasMembers(service.kafka, projectorGroup(live))).toBe(false);
    const after = await createSession();
    expect((await fetch(`${service.url}/sessions/${after}`)).status).toBe(200);
    // The projector writes off the write path (and waits up to PROJECTOR_FETCH_WAIT_MS for fuller
    // batches): the new table has the session a moment after the POST's answer, the retired one never.
    const projected = await until(
      "the new table has it",
      async () => (await replayed.get(after)) ?? undefined,
    );
    expect(projected.state.id).toBe(after);
    expect(await liveModel.get(after)).toBeNull();

    // Back: the retired live table is rebuilt (its rows only move forward), followed, switched to.
    const rebuilt = await build(live);
    expect(rebuilt.status).toBe(200);
    expect((await liveModel.get(after))?.state.id).toBe(after);
    const back = await until("the switch back", async () => {
      const res = await post("/switch", live);
      return res.status === 200 ? ((await json(res)) as Models) : undefined;
    });
    expect(back).toMatchObject({ active: live, read_by_this_gateway: live });
    const done = (await json(await post("/retire", table))) as Models;
    expect(done).toMatchObject({ active: live, following: start.following });
    expect(done.retired).toContain(table);
    expect((await fetch(`${service.url}/sessions/${after}`)).status).toBe(200);
  });
});

describe("a session's journal", () => {
  it("is every event of the session, decoded, with the partition, offset and time it has on session.events", async () => {
    type Journal = {
      events: Array<{ partition: number; offset: string; time: string; type: string; version: number }>;
    };
    // The session expires 10 s after creation: its second event.
    const journal = await until("the session's expiry", async () => {
      const res = await op(`/v1/operator/sessions/${created}/journal`);
      const body = (await json(res)) as Journal;
      return body.events.length >= 2 ? body : undefined;
    });
    expect(journal.events.map((e) => [e.type, e.version])).toEqual([
      ["SessionCreated", 1],
      ["SessionExpired", 2],
    ]);
    const [first, second] = journal.events as [Journal["events"][0], Journal["events"][0]];
    expect(second.partition).toBe(first.partition);
    expect(BigInt(second.offset)).toBeGreaterThan(BigInt(first.offset));
    expect(Date.parse(second.time)).toBeGreaterThanOrEqual(Date.parse(first.time));
    // The offsets are the records': each one read back is this session's.
    for (const e of journal.events) {
      let key: string | undefined;
      await readTopic(service.kafka, {
        topic: TOPIC.sessionEvents,
        from: new Map([[e.partition, BigInt(e.offset)]]),
        until: new Map([[e.partition, BigInt(e.offset) + 1n]]),
        onBatch: (records) => {
          key = records[0]?.key?.toString();
        },
      });
      expect(key).toBe(created);
    }
    // Through the CLI, the same answer.
    const printed = await cli("journal", created);
    expect(printed.code, printed.err).toBe(0);
    expect(JSON.parse(printed.out)).toEqual(journal);
    expect((await op(`/v1/operator/sessions/${randomUUID()}/journal`)).status).toBe(404);
    expect((await op("/v1/operator/sessions/not-a-uuid/journal")).status).toBe(400);
  });
});
