import type { Shape } from "./fields.ts";

/**
 * Compares a definition with its `.avsc` (as avsc's `type.schema()` gives it: full names, a named
 * type written out once and referred to by name after). Answers every difference, as
 * "path: problem", so a field added to one and not the other is named at start-up and in the tests.
 */
export function matchSchema(shape: Shape, schema: unknown): string[] {
  const named = new Map<string, unknown>();
  const problems: string[] = [];
  walk(shape, schema, "", named, problems);
  return problems;
}

type Json = { type?: unknown; name?: string; fields?: Array<{ name: string; type: unknown }> };

const simpleName = (full: string) => full.slice(full.lastIndexOf(".") + 1);

function walk(shape: Shape, schema: unknown, path: string, named: Map<string, unknown>, out: string[]) {
  const at = path || "(record)";
  // A named type seen earlier in the same schema is referred to by its full name.
  const resolved = typeof schema === "string" && named.has(schema) ? named.get(schema) : schema;
  const s = resolved as Json | string | unknown[];
  if (typeof s === "object" && s !== null && !Array.isArray(s) && typeof s.name === "string")
    named.set(s.name, s);
  const t = typeof s === "string" ? s : Array.isArray(s) ? "union" : (s as Json).type;
  switch (shape.kind) {
    case "string":
    case "boolean":
      if (t !== shape.kind)
        out.push(`${at}: the schema has ${JSON.stringify(t)}, the definition ${shape.kind}`);
      return;
    case "number":
      if (t !== "int" && t !== "long")
        out.push(`${at}: the schema has ${JSON.stringify(t)}, the definition a number`);
      return;
    case "nullable": {
      const u = s as unknown[];
      if (t !== "union" || u.length !== 2 || u[0] !== "null") {
        out.push(`${at}: the definition is nullable, the schema is not ["null", T]`);
        return;
      }
      walk(shape.of, u[1], path, named, out);
      return;
    }
    case "array":
    case "map": {
      if (t !== shape.kind) {
        out.push(`${at}: the schema has ${JSON.stringify(t)}, the definition ${shape.kind}`);
        return;
      }
      const inner =
        shape.kind === "array" ? (s as { items: unknown }).items : (s as { values: unknown }).values;
      walk(shape.of, inner, `${path}[]`, named, out);
      return;
    }
    case "record": {
      if (t !== "record") {
        out.push(`${at}: the schema has ${JSON.stringify(t)}, the definition a record`);
        return;
      }
      const fields = (s as Json).fields ?? [];
      const inSchema = new Set(fields.map((f) => f.name));
      for (const name of shape.fields.keys())
        if (!inSchema.has(name)) out.push(`${path ? `${path}.` : ""}${name}: not in the schema`);
      for (const f of fields) {
        const p = path ? `${path}.${f.name}` : f.name;
        const sub = shape.fields.get(f.name);
        if (sub) walk(sub, f.type, p, named, out);
        else out.push(`${p}: in the schema but not in the definition`);
      }
      return;
    }
    case "union": {
      if (t !== "union") {
        out.push(`${at}: the definition is a union, the schema has ${JSON.stringify(t)}`);
        return;
      }
      const branches = (s as unknown[]).map((b) => {
        const r = typeof b === "string" && named.has(b) ? named.get(b) : b;
        return { name: simpleName((r as Json).name ?? String(r)), schema: b };
      });
      const inSchema = new Set(branches.map((b) => b.name));
      for (const name of shape.branches.keys())
        if (!inSchema.has(name)) out.push(`${path}.${name}: no such branch in the schema`);
      for (const b of branches) {
        const sub = shape.branches.get(b.name);
        if (sub) walk(sub, b.schema, `${path}.${b.name}`, named, out);
        else out.push(`${path}.${b.name}: a branch of the schema missing from the definition`);
      }
      return;
    }
    default:
      return shape satisfies never;
  }
}
