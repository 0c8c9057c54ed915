import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fingerprintBytes, formatFingerprint, schemaSet } from "../../src/kafka/avro.ts";

/**
 * House rules of schemas/: they are the public contract, so every record and field says what it is,
 * names are snake_case, nullable fields default to null, and a record shared by several files (each
 * file is self-contained) is defined the same way everywhere.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
interface Named {
  file: string;
  path: string;
  fullName: string;
  definition: string;
}

const dir = new URL("../../schemas/", import.meta.url);
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".avsc"))
  .sort();
const parse = (f: string) => JSON.parse(readFileSync(new URL(f, dir), "utf8")) as { [k: string]: Json };

/** Walks a schema, calling back for each named type (with its full name) and each record field. */
function walk(
  schema: Json,
  namespace: string,
  path: string,
  onNamed: (fullName: string, node: { [k: string]: Json }, path: string) => void,
  onField: (field: { [k: string]: Json }, path: string) => void,
): void {
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => {
      walk(s, namespace, `${path}[${i}]`, onNamed, onField);
    });
    return;
  }
  if (schema === null || typeof schema !== "object") return;
  const type = schema.type;
  if (type === "record" || type === "enum" || type === "fixed") {
    const name = String(schema.name);
    const ns = typeof schema.namespace === "string" ? schema.namespace : namespace;
    const fullName = name.includes(".") ? name : `${ns}.${name}`;
    onNamed(fullName, schema, path);
    if (type === "record" && Array.isArray(schema.fields)) {
      const inner = fullName.slice(0, fullName.lastIndexOf("."));
      for (const f of schema.fields as Array<{ [k: string]: Json }>) {
        onField(f, `${path}.${f.name}`);
        walk(f.type ?? null, inner, `${path}.${f.name}`, onNamed, onField);
      }
    }
    return;
  }
  if (type === "array") walk(schema.items ?? null, namespace, `${path}[]`, onNamed, onField);
  else if (type === "map") walk(schema.values ?? null, namespace, `${path}{}`, onNamed, onField);
  else if (typeof type === "object") walk(type, namespace, path, onNamed, onField);
}

const named: Named[] = [];
const fields: Array<{ file: string; path: string; field: { [k: string]: Json } }> = [];
for (const file of files) {
  walk(
    parse(file),
    "",
    file,
    (fullName, node, path) => named.push({ file, path, fullName, definition: JSON.stringify(node) }),
    (field, path) => fields.push({ file, path, field }),
  );
}

describe("schemas/ house rules", () => {
  it.each(files)("%s is a documented record in namespace settlement.v1", (file) => {
    const s = parse(file);
    expect(s).toMatchObject({ type: "record", namespace: "settlement.v1", name: file.replace(".avsc", "") });
    expect(typeof s.doc === "string" && s.doc.length > 20).toBe(true);
  });

  it("documents every record and every field", () => {
    const undocumented = [
      ...named.filter((n) => !(JSON.parse(n.definition) as { doc?: string }).doc).map((n) => n.path),
      ...fields.filter((f) => typeof f.field.doc !== "string" || f.field.doc.length === 0).map((f) => f.path),
    ];
    expect(undocumented).toEqual([]);
  });

  it("names fields in snake_case", () => {
    expect(fields.filter((f) => !/^[a-z][a-z0-9_]*$/.test(String(f.field.name))).map((f) => f.path)).toEqual(
      [],
    );
  });

  it("gives every nullable field the default null", () => {
    const wrong = fields.filter((f) => {
      const t = f.field.type;
      return Array.isArray(t) && t[0] === "null" && !("default" in f.field && f.field.default === null);
    });
    expect(wrong.map((f) => f.path)).toEqual([]);
  });

  it("defines a record shared by several files identically in each", () => {
    const first = new Map<string, Named>();
    const differing: string[] = [];
    for (const n of named) {
      const seen = first.get(n.fullName);
      if (!seen) first.set(n.fullName, n);
      else if (seen.definition !== n.definition) differing.push(`${n.fullName}: ${seen.path} vs ${n.path}`);
    }
    expect(differing).toEqual([]);
  });
});

describe("schemas/README.md", () => {
  const readme = readFileSync(new URL("README.md", dir), "utf8");

  it.each([...schemaSet().current.values()].map((s) => [s.file, s] as const))(
    "shows the current fingerprint and header of %s",
    (file, s) => {
      const row = readme.split("\n").find((l) => l.startsWith(`| [\`${file}\`]`));
      expect(row, `${file} is missing from the table`).toBeDefined();
      const header = `c3 01 ${[...fingerprintBytes(s.fingerprint)].map((b) => b.toString(16).padStart(2, "0")).join(" ")}`;
      expect(row).toContain(`\`${s.name}\``);
      expect(row).toContain(`\`${formatFingerprint(s.fingerprint)}\``);
      expect(row).toContain(`\`${header}\``);
    },
  );
});
