import { readdirSync, readFileSync } from "node:fs";
import avsc from "avsc";
import { describe, expect, it } from "vitest";
import { CO_PARTITIONED, schemaFile, TOPIC, type TopicSpec, topicCatalogue } from "../../topics/catalogue.ts";

const root = new URL("../../", import.meta.url);
const catalogue = topicCatalogue({ sessionPartitions: 12 });
const byName = (name: string): TopicSpec => {
  const t = catalogue.find((c) => c.name === name);
  if (!t) throw new Error(`no topic ${name}`);
  return t;
};

/** How topics/README.md writes a retention. */
function retentionWords(ms: number): string {
  if (ms === -1) return "forever";
  const hours = ms / 3_600_000;
  return hours % 24 === 0 ? `${hours / 24} days` : `${hours} hours`;
}

describe("topic catalogue", () => {
  it("has every topic of the architecture, each once, and TOPIC names them all", () => {
    const names = catalogue.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
    expect(names.sort()).toEqual(Object.values(TOPIC).sort());
    expect(names).toHaveLength(15);
  });

  it("gives the co-partitioned topics and session.state the same partition count", () => {
    for (const name of [...CO_PARTITIONED, TOPIC.sessionState]) {
      expect(byName(name)).toMatchObject({ partitions: 12, key: "session id" });
    }
  });

  it("keeps the journals forever and never compacts them; compacts session.state", () => {
    for (const name of [TOPIC.sessionEvents, TOPIC.merchantEvents]) {
      expect(byName(name)).toMatchObject({ cleanupPolicy: "delete", retentionMs: -1 });
    }
    expect(byName(TOPIC.sessionState).cleanupPolicy).toBe("compact");
    expect(byName(TOPIC.gatewayReplies).retentionMs).toBeLessThan(24 * 3_600_000);
  });

  it("refuses a partition count that is not a positive integer", () => {
    expect(() => topicCatalogue({ sessionPartitions: 0 })).toThrow(RangeError);
    expect(() => topicCatalogue({ sessionPartitions: 1.5 })).toThrow(RangeError);
  });

  it("names a schema file for every value, whose record has that full name", () => {
    for (const t of catalogue) {
      const schema = JSON.parse(readFileSync(new URL(schemaFile(t.valueSchema), root), "utf8"));
      expect(avsc.Type.forSchema(schema).name, t.name).toBe(t.valueSchema);
    }
  });

  it("uses every schema file in schemas/", () => {
    const used = new Set(catalogue.map((t) => schemaFile(t.valueSchema)));
    const files = readdirSync(new URL("schemas/", root)).filter((f) => f.endsWith(".avsc"));
    expect(files.map((f) => `schemas/${f}`).filter((f) => !used.has(f))).toEqual([]);
  });
});

describe("topics/README.md", () => {
  const readme = readFileSync(new URL("topics/README.md", root), "utf8");
  const rows = new Map(
    readme
      .split("\n")
      .filter((l) => l.startsWith("| ") && !l.startsWith("| topic") && !l.startsWith("| ---"))
      .map((l) => {
        const cells = l
          .split("|")
          .slice(1, -1)
          .map((c) => c.trim());
        return [cells[0] ?? "", cells] as const;
      }),
  );

  it.each(catalogue.map((t) => [t.name, t] as const))("lists %s as the catalogue says", (_, t) => {
    const cells = rows.get(t.name);
    expect(cells, `${t.name} is missing from topics/README.md`).toBeDefined();
    const [, partitions, key, value, cleanup, retention, writers, readers] = cells ?? [];
    expect({ partitions, key, value, cleanup, retention, writers, readers }).toEqual({
      partitions: t.partitions === 12 ? "P" : String(t.partitions),
      key: t.key,
      value: `\`${t.valueSchema}\``,
      cleanup: t.cleanupPolicy,
      retention: retentionWords(t.retentionMs),
      writers: t.writers.join(", "),
      readers: t.readers.join(", "),
    });
  });

  it("lists no topic the catalogue does not have", () => {
    expect([...rows.keys()].filter((name) => !catalogue.some((t) => t.name === name))).toEqual([]);
  });
});
