import { describe, expect, it } from "vitest";
import type { SessionEvent } from "../../src/domain/events.ts";
import { partitionLag, topicLag } from "../../src/kafka/consumer-lag.ts";
import { partitionOfKey } from "../../src/kafka/key-history.ts";
import { operatorRequest, runOperatorCli } from "../../src/operator/cli.ts";
import { deadLetterView, journalEntry, jsonSafe, lagView } from "../../src/operator/views.ts";
import {
  activate,
  follow,
  INITIAL_READ_MODELS,
  projectedTables,
  projectorGroup,
  retire,
} from "../../src/projections/read-model-control.ts";

describe("read-model control", () => {
  const built = follow(INITIAL_READ_MODELS, "sessions_v2");

  it("keeps the historical projector group for `sessions` and gives every other table its own", () => {
    expect(projectorGroup("sessions")).toBe("projector");
    expect(projectorGroup("sessions_v2")).toBe("projector.sessions_v2");
  });

  it("lets a rebuilt table follow beside the active one, never one that is written", () => {
    expect(built).toEqual({
      ok: true,
      next: { active: "sessions", following: ["sessions_v2"], retired: [], version: 1 },
    });
    if (!built.ok) throw new Error("unreachable");
    expect(follow(built.next, "sessions_v2")).toEqual({ ok: false, code: "read_model_exists" });
    expect(follow(built.next, "sessions")).toEqual({ ok: false, code: "read_model_exists" });
    expect(projectedTables(built.next)).toEqual(["sessions", "sessions_v2"]);
  });

  it("switches to a follower and keeps the table it left as a follower, for a switch back", () => {
    if (!built.ok) throw new Error("unreachable");
    const switched = activate(built.next, "sessions_v2");
    expect(switched).toEqual({
      ok: true,
      next: { active: "sessions_v2", following: ["sessions"], retired: [], version: 2 },
    });
    expect(activate(built.next, "other")).toEqual({ ok: false, code: "read_model_not_found" });
    // Switching to the active table changes nothing, not even the version.
    expect(activate(built.next, "sessions")).toEqual({ ok: true, next: built.next });
  });

  it("retires only a follower, which may then be rebuilt", () => {
    if (!built.ok) throw new Error("unreachable");
    expect(retire(built.next, "sessions")).toEqual({ ok: false, code: "read_model_active" });
    expect(retire(built.next, "nope")).toEqual({ ok: false, code: "read_model_not_found" });
    const retired = retire(built.next, "sessions_v2");
    expect(retired).toEqual({
      ok: true,
      next: { active: "sessions", following: [], retired: ["sessions_v2"], version: 2 },
    });
    if (!retired.ok) throw new Error("unreachable");
    expect(follow(retired.next, "sessions_v2")).toEqual({
      ok: true,
      next: { active: "sessions", following: ["sessions_v2"], retired: [], version: 3 },
    });
  });
});

describe("consumer lag", () => {
  it("is the high watermark less the committed offset; a group that committed nothing owes it all", () => {
    expect(partitionLag(0, 40n, 42n)).toEqual({ partition: 0, committed: 40n, end: 42n, lag: 2n });
    expect(partitionLag(1, null, 7n)).toEqual({ partition: 1, committed: null, end: 7n, lag: 7n });
    // A committed offset past the end (a topic truncated under it) owes nothing rather than a negative.
    expect(partitionLag(2, 9n, 5n).lag).toBe(0n);
  });

  it("sums partitions into topics and groups into roles", () => {
    const t = topicLag(
      "session.events",
      new Map([
        [1, 10n],
        [0, 5n],
      ]),
      new Map([[0, 5n]]),
    );
    expect(t.partitions.map((p) => p.partition)).toEqual([0, 1]);
    expect(t.lag).toBe(10n);
    const view = lagView([
      { role: "projector", group: "projector", topics: [t] },
      { role: "actors", group: "actors", topics: [] },
      { role: "projector", group: "link-projector", topics: [{ ...t, topic: "link.events", lag: 3n }] },
    ]);
    expect(view.roles.map((r) => [r.role, r.lag, r.groups.map((g) => g.group)])).toEqual([
      ["projector", 13, ["projector", "link-projector"]],
      ["actors", 0, ["actors"]],
    ]);
    expect(view.roles[0]?.groups[0]?.topics[0]?.partitions[1]).toEqual({
      partition: 1,
      committed: null,
      end: 10,
      lag: 10,
    });
  });
});

describe("journal entries", () => {
  const record = { partition: 3, offset: 17n, key: null, value: null, timestamp: 1_800_000_000_000 };

  it("carry the record's place and time and the event with amounts as decimal strings", () => {
    const event = {
      type: "DepositFinalized",
      data: { amount: 2n ** 70n, nested: [{ block: 5n }], note: null },
      metadata: { sessionId: "s", version: 4, occurredAt: 1_799_999_999_000, commandId: "c" },
    } as unknown as SessionEvent;
    expect(journalEntry(record, event)).toEqual({
      partition: 3,
      offset: "17",
      time: "2027-01-15T08:00:00.000Z",
      type: "DepositFinalized",
      version: 4,
      occurred_at: "2027-01-15T07:59:59.000Z",
      command_id: "c",
      data: { amount: "1180591620717411303424", nested: [{ block: "5" }], note: null },
    });
    expect(JSON.stringify(jsonSafe({ a: [1n, { b: 2n }] }))).toBe('{"a":["1",{"b":"2"}]}');
  });

  it("name a record the codec refused instead of dropping it", () => {
    expect(journalEntry(record, { error: "bad magic" })).toMatchObject({
      type: "undecodable",
      version: null,
      data: { error: "bad magic" },
    });
  });

  it("look for a session in the partition Java's murmur2 partitioner gives its key, as the producers do", () => {
    // Kafka's own murmur2 vectors (UtilsTest.testMurmur2): hash & 0x7fffffff, modulo the partitions.
    const vectors: Array<[string, number]> = [
      ["21", -973932308],
      ["foobar", -790332482],
      ["a-little-bit-long-string", -985981536],
      ["abc", 479470107],
    ];
    for (const [key, hash] of vectors) {
      for (const n of [1, 8, 13])
        expect([key, n, partitionOfKey(key, n)]).toEqual([key, n, (hash & 0x7fffffff) % n]);
    }
  });
});

describe("dead-letter view", () => {
  it("shows where the record came from, why, its size and its re-drive", () => {
    const letter = {
      kind: "parked" as const,
      group: "actors",
      topic: "session.commands",
      partition: 2,
      offset: 40,
      key: Buffer.from("k").toString("base64"),
      value: Buffer.from("12345").toString("base64"),
      headers: [],
      errorCode: "decode_failed",
      errorMessage: "bad magic",
      at: 1_800_000_000_000,
      redrivenTo: null,
    };
    expect(deadLetterView({ letter, at: { partition: 0, offset: 9n }, redrivenTo: 41 })).toEqual({
      topic: "session.commands",
      partition: 2,
      offset: 40,
      group: "actors",
      error_code: "decode_failed",
      error_message: "bad magic",
      parked_at: "2027-01-15T08:00:00.000Z",
      key: "aw==",
      value_bytes: 5,
      redriven_to: 41,
    });
  });
});

describe("the operator CLI", () => {
  it("maps each command to its route", () => {
    expect(operatorRequest(["journal", "abc"])).toEqual({
      method: "GET",
      path: "/v1/operator/sessions/abc/journal",
    });
    expect(operatorRequest(["dead-letters", "--topic", "session.commands"])).toEqual({
      method: "GET",
      path: "/v1/operator/dead-letters?topic=session.commands",
    });
    expect(operatorRequest(["redrive", "--topic", "t", "--partition", "1", "--offset", "20"])).toEqual({
      method: "POST",
      path: "/v1/operator/dead-letters/redrive",
      body: { topic: "t", partition: 1, offset: 20 },
    });
    expect(operatorRequest(["lag"])).toEqual({ method: "GET", path: "/v1/operator/lag" });
    expect(operatorRequest(["build", "--table", "s2"])).toEqual({
      method: "POST",
      path: "/v1/operator/read-models",
      body: { table: "s2" },
    });
    expect(operatorRequest(["switch", "--table", "s2"])).toMatchObject({
      path: "/v1/operator/read-models/switch",
    });
    expect(operatorRequest(["retire", "--table", "s2"])).toMatchObject({
      path: "/v1/operator/read-models/retire",
    });
  });

  it("says what is missing instead of calling a route", () => {
    expect(operatorRequest([])).toEqual({ usage: "no command" });
    expect(operatorRequest(["journal"])).toHaveProperty("usage");
    expect(operatorRequest(["redrive", "--topic", "t", "--partition", "x", "--offset", "1"])).toHaveProperty(
      "usage",
    );
    expect(operatorRequest(["switch"])).toHaveProperty("usage");
    expect(operatorRequest(["drop"])).toEqual({ usage: "unknown command: drop" });
  });

  it("refuses to run without OPERATOR_SECRET", async () => {
    let err = "";
    const code = await runOperatorCli(["lag"], {}, { stdout: () => {}, stderr: (s) => (err += s) });
    expect(code).toBe(2);
    expect(err).toContain("OPERATOR_SECRET is not set");
  });
});
