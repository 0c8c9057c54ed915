import { Compiler, type Fields, NAMESPACE, type RecordOf, record, type Shape } from "./fields.ts";

/**
 * Avro unions of records, in the two TypeScript shapes our records use. avsc represents a value of
 * such a union as an object with one key, the branch's full name: `{ "settlement.v1.Sweep": {...} }`.
 *   - `union`: `{ type: "Sweep", ...fields }`, the branch name as a `type` tag beside its fields;
 *   - `message`: the domain's `{ type, data, metadata }` of commands and events (src/domain/), from an
 *     envelope record whose last field holds the union.
 */

type Flat<T> = { [K in keyof T]: T[K] };
type Branches = Record<string, Fields>;
type Avro = Record<string, unknown>;

export type UnionOf<B extends Branches> = {
  [K in keyof B & string]: Flat<{ type: K } & RecordOf<B[K]>>;
}[keyof B & string];

export type MessageOf<M extends Fields, D extends Fields, B extends Branches> = {
  [K in keyof B & string]: {
    type: K;
    data: Flat<RecordOf<D> & RecordOf<B[K]>>;
    metadata: RecordOf<M>;
  };
}[keyof B & string];

/** A union's branches, each with its copy functions compiled by `make`, and how to find one. */
function branchesOf<To, From>(
  types: Branches,
  make: (c: Compiler, b: { type: string; full: string; fields: ReturnType<typeof record> }) => [To, From],
) {
  const list = Object.entries(types).map(([type, fields]) => {
    const b = { type, full: `${NAMESPACE}.${type}`, fields: record(fields) };
    const [to, from] = make(new Compiler(), b);
    return { ...b, to, from };
  });
  const byType = new Map(list.map((b) => [b.type, b]));
  const find = (u: Avro) => list.find((b) => u[b.full] != null);
  return {
    shape: { kind: "union", branches: new Map(list.map((b) => [b.type, b.fields.shape])) } satisfies Shape,
    checks: list.some((b) => b.fields.checks),
    byType(type: string) {
      const b = byType.get(type);
      if (!b) throw new TypeError(`no union branch ${type} (known: ${[...byType.keys()].join(", ")})`);
      return b;
    },
    /** The branch an avsc union value holds (avsc always gives one; check() reports when not). */
    of(u: Avro) {
      const b = find(u);
      if (!b) throw new TypeError(`union value has no known branch (${Object.keys(u).join(", ")})`);
      return b;
    },
    check(u: Avro, path: string, issues: string[]) {
      const b = find(u);
      if (!b) issues.push(`${path}: no known branch (${Object.keys(u).join(", ")})`);
      else b.fields.check(u[b.full] as Avro, `${path}.${b.type}`, issues);
    },
  };
}

/** `{ type: K, ...fields of K }` for each branch K. */
export function union<B extends Branches>(types: B) {
  const u = branchesOf(types, (c, b) => [
    c.build<(v: Avro) => Avro>("v", c.literal([[b.full, c.literal(c.copy(b.fields.entries, "v", true))]])),
    c.build<(u: Avro) => Avro>(
      "u",
      c.literal([["type", JSON.stringify(b.type)], ...c.copy(b.fields.entries, "u", false)]),
    ),
  ]);
  return {
    shape: u.shape,
    checks: u.checks,
    toAvro: (v: UnionOf<B>): Avro => u.byType(v.type).to(v as Avro),
    fromAvro: (a: Avro): UnionOf<B> => {
      const b = u.of(a);
      return b.from(a[b.full] as Avro) as UnionOf<B>;
    },
    check: u.check,
  };
}

/**
 * The domain's `{ type, data, metadata }`: `metadata` and `data` name envelope fields (the ones in
 * `data` are shared by every type, like a command's session id); the union field `union` holds the
 * rest of `data`, one branch per type.
 */
export function message<M extends Fields, D extends Fields, B extends Branches>(def: {
  metadata: M;
  data: D;
  union: string;
  types: B;
}) {
  const metadata = record(def.metadata);
  const data = record(def.data);
  const field = def.union;
  const u = branchesOf(def.types, (c, b) => {
    const to = c.literal([
      ...c.copy(metadata.entries, "v.metadata", true),
      ...c.copy(data.entries, "v.data", true),
      [field, c.literal([[b.full, c.literal(c.copy(b.fields.entries, "v.data", true))]])],
    ]);
    const from = c.literal([
      ["type", JSON.stringify(b.type)],
      ["data", c.literal([...c.copy(data.entries, "a", false), ...c.copy(b.fields.entries, "u", false)])],
      ["metadata", c.literal(c.copy(metadata.entries, "a", false))],
    ]);
    return [c.build<(v: unknown) => Avro>("v", to), c.build<(a: Avro, u: Avro) => unknown>("a, u", from)];
  });
  const fields = new Map([
    ...metadata.shape.fields.entries(),
    ...data.shape.fields.entries(),
    [field, u.shape] as const,
  ]);
  return {
    shape: { kind: "record", fields } satisfies Shape,
    checks: true,
    toAvro: (v: MessageOf<M, D, B>): Avro => u.byType(v.type).to(v),
    fromAvro: (a: Avro): MessageOf<M, D, B> => {
      const value = a[field] as Avro;
      const b = u.of(value);
      return b.from(a, value[b.full] as Avro) as MessageOf<M, D, B>;
    },
    check: (a: Avro, path: string, issues: string[]) => {
      metadata.check(a, path, issues);
      data.check(a, path, issues);
      u.check(a[field] as Avro, path ? `${path}.${field}` : field, issues);
    },
  };
}
