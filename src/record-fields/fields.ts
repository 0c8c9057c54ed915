import { z } from "zod";
import type { Address, BlockId, ChainAddress, Hex, TxId } from "../domain/types.ts";

/**
 * The record contract: one declarative definition per record, built from the small field types
 * below. A definition gives, with nothing else written by hand:
 *   - the TypeScript type (`Infer<typeof def>`, or a domain type the definition is checked against);
 *   - the mapping to the value avsc encodes and back (camelCase keys to snake_case, bigint to decimal
 *     string, `{ type, ... }` unions to avsc's `{ "settlement.v1.Type": ... }`);
 *   - the checks Avro cannot express (0x hex, addresses, decimal amounts, vocabularies);
 *   - what the `.avsc` must say, compared with the file when a codec is built (see matchSchema).
 * The `.avsc` files stay the public contract and the Avro types; a definition that drifts from its
 * file fails at start-up and in the unit tests, naming the field.
 */
export interface Field<T, A = unknown> {
  /** What the schema must say here. */
  readonly shape: Shape;
  /** The wire name when it is not the snake_case of the key (records only). */
  readonly wireName?: string;
  /** false when `check` can never find anything (plain strings and numbers): records skip it. */
  readonly checks: boolean;
  /** true when the value is the same on both sides (toAvro and fromAvro are the identity). */
  readonly plain?: boolean;
  /**
   * The zod schema of the TypeScript value as JSON, for an HTTP response carrying the same object
   * (see jsonSchemaOf); absent where the value is not JSON (bigint) or no response needs it (unions).
   */
  readonly json?: () => z.ZodType;
  // Property syntax, not method syntax: a definition typed against a domain type must then match it
  // both ways (strict function types), not merely be assignable one way.
  readonly toAvro: (value: T) => A;
  readonly fromAvro: (avro: A) => T;
  /** Appends "path: problem" for each problem of an avsc value. */
  readonly check: (avro: A, path: string, issues: string[]) => void;
}

export type Shape =
  | { kind: "string" | "number" | "boolean" }
  | { kind: "nullable" | "array" | "map"; of: Shape }
  | { kind: "record"; fields: ReadonlyMap<string, Shape> }
  | { kind: "union"; branches: ReadonlyMap<string, Shape> };

/** The TypeScript type a definition stands for. */
export type Infer<F> = F extends Field<infer T, infer _A> ? T : never;
// biome-ignore lint/suspicious/noExplicitAny: a field of any type, for generic constraints
export type AnyField = Field<any, any>;

/** Record full names are `${NAMESPACE}.${name}` in every schema of ours. */
export const NAMESPACE = "settlement.v1";

const same = <T>(v: T): T => v;
const noCheck = () => {};

const JSON_OF = { string: () => z.string(), number: () => z.number().int(), boolean: () => z.boolean() };

function leaf<T, A>(
  kind: "string" | "number" | "boolean",
  test?: { ok: (a: A) => boolean; message: string },
  toAvro: (v: T) => A = same as (v: T) => A,
  fromAvro: (a: A) => T = same as (a: A) => T,
): Field<T, A> {
  const plain = toAvro === same && fromAvro === same;
  return {
    shape: { kind },
    checks: test !== undefined,
    plain,
    // A value that changes on the way to Avro (a bigint) has no JSON form of its own.
    ...(plain && { json: JSON_OF[kind] }),
    toAvro,
    fromAvro,
    check: test
      ? (a, path, issues) => {
          if (!test.ok(a)) issues.push(`${path}: ${test.message}`);
        }
      : noCheck,
  };
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const HEX_RE = /^0x[0-9a-fA-F]*$/;
const DECIMAL_RE = /^[0-9]+$/;
const decimalTest = { ok: (a: string) => DECIMAL_RE.test(a), message: "must be a decimal integer string" };

export const string = leaf<string, string>("string");
/** Avro int or long; avsc has already checked that it is an integer in range. */
export const number = leaf<number, number>("number");
export const boolean = leaf<boolean, boolean>("boolean");
export const address = leaf<Address, string>(
  "string",
  { ok: (a) => ADDRESS_RE.test(a), message: "must be a 0x address" },
  same,
  same as (a: string) => Address, // the check above is what makes the cast true
);
export const hex = leaf<Hex, string>(
  "string",
  { ok: (a) => HEX_RE.test(a), message: "must be 0x hex" },
  same,
  same as (a: string) => Hex,
);
const BASE58_RE = /^[1-9A-HJ-NP-Za-km-z]{32,88}$/;
/**
 * The spellings of the families we know, told apart by the value itself: a record of a session or
 * a transfer does not always carry the chain whose family would say which one applies (a burner has
 * no chain id), and the codecs know no configuration. So the contract checks the family-independent
 * part, "an address (id) in some family's spelling"; the chain adapter and the gateway, which know
 * the family, validate and canonicalise where values enter. A family with a new alphabet adds its
 * spelling here, never in the domain.
 */
export const isChainAddress = (a: string): boolean => ADDRESS_RE.test(a) || BASE58_RE.test(a);
export const isChainHash = (a: string): boolean => HEX_RE.test(a) || BASE58_RE.test(a);
/** An address on any configured chain (EVM 0x hex, Solana base58): the domain's ChainAddress. */
export const chainAddress = leaf<ChainAddress, string>("string", {
  ok: isChainAddress,
  message: "must be a 0x address or a base58 address",
});
/** A transaction id or block hash on any chain (EVM 0x hex, Solana base58). */
export const chainHash = leaf<string, string>("string", {
  ok: isChainHash,
  message: "must be 0x hex or base58",
});
/** The domain's TxId (EVM 0x hash, Solana base58 signature). */
export const txId: Field<TxId, string> = chainHash;
/** The domain's BlockId (a block's or a slot's hash). */
export const blockId: Field<BlockId, string> = chainHash;
/** A uint256 amount kept as its decimal string (the read side's Session object). */
export const decimal = leaf<string, string>("string", decimalTest);
/** A uint256 amount: bigint in TypeScript, a decimal string in Avro (it does not fit a long). */
export const amount = leaf<bigint, string>("string", decimalTest, (v) => v.toString(), BigInt);
/** A block number: bigint in TypeScript, an Avro long (heights stay far below 2^53). */
export const blockNumber = leaf<bigint, number>(
  "number",
  undefined,
  (v) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n)) throw new RangeError(`${v} does not fit an Avro long read as a JS number`);
    return n;
  },
  BigInt,
);
/** A string from a fixed vocabulary (Avro string, not enum: a new value never breaks an old reader). */
export function oneOf<V extends string>(values: readonly V[]): Field<V, string> {
  const known = new Set<string>(values);
  const message = `must be one of ${values.join(", ")}`;
  const f = leaf<V, string>("string", { ok: (a) => known.has(a), message }, same, same as (a: string) => V);
  return { ...f, json: () => z.enum(values as [V, ...V[]]) };
}

export function nullable<T, A>(f: Field<T, A>): Field<T | null, A | null> {
  return {
    shape: { kind: "nullable", of: f.shape },
    checks: f.checks,
    // null or the plain value: still a plain copy, with no call per record.
    ...(f.plain && { plain: true }),
    ...(f.json && { json: () => jsonOf(f).nullable() }),
    toAvro: (v) => (v === null ? null : f.toAvro(v)),
    fromAvro: (a) => (a === null ? null : f.fromAvro(a)),
    check: (a, path, issues) => {
      if (a !== null) f.check(a, path, issues);
    },
  };
}

export function array<T, A>(f: Field<T, A>): Field<T[], A[]> {
  return {
    shape: { kind: "array", of: f.shape },
    checks: f.checks,
    ...(f.json && { json: () => z.array(jsonOf(f)) }),
    toAvro: (v) => v.map(f.toAvro),
    fromAvro: (a) => a.map(f.fromAvro),
    check: (a, path, issues) => {
      for (let i = 0; i < a.length; i++) f.check(a[i] as A, `${path}.${i}`, issues);
    },
  };
}

/** An Avro map: string keys, kept as they are. */
export function map<T, A>(f: Field<T, A>): Field<Record<string, T>, Record<string, A>> {
  const each =
    (g: (x: never) => unknown) =>
    (o: Record<string, unknown>): Record<string, never> => {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(o)) out[k] = g(o[k] as never);
      return out as Record<string, never>;
    };
  return {
    shape: { kind: "map", of: f.shape },
    checks: f.checks,
    ...(f.json && { json: () => z.record(z.string(), jsonOf(f)) }),
    toAvro: each(f.toAvro),
    fromAvro: each(f.fromAvro),
    check: (a, path, issues) => {
      for (const k of Object.keys(a)) f.check(a[k] as A, `${path}.${k}`, issues);
    },
  };
}

/** The field under another wire name than the snake_case of its key. */
export const renamed = <T, A>(wireName: string, f: Field<T, A>): Field<T, A> => ({ ...f, wireName });

/** The field with a description for its JSON schema (the OpenAPI document shows it). */
export const described = <T, A>(description: string, f: Field<T, A>): Field<T, A> => ({
  ...f,
  json: () => jsonOf(f).describe(description),
});

function jsonOf(f: AnyField): z.ZodType {
  if (!f.json) throw new TypeError(`no JSON form for a ${f.shape.kind} field`);
  return f.json();
}

/**
 * The zod object of a record definition's TypeScript value as JSON: the response schema of an HTTP
 * route that answers the same object the record carries (the gateway's Session). Like every zod
 * object it strips keys it does not name.
 */
export function jsonSchemaOf<F extends Fields>(
  r: RecordField<F>,
): z.ZodObject<{ [K in keyof F]: z.ZodType<Infer<F[K]>> }> {
  return jsonOf(r) as never;
}

export type Fields = Record<string, AnyField>;
export type RecordOf<F extends Fields> = { [K in keyof F]: Infer<F[K]> };

const snakeCase = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** One field of a record: its TypeScript key, its wire name, its type. */
export interface Entry {
  key: string;
  wire: string;
  f: AnyField;
}

/**
 * An Avro record as a TypeScript object: each key's wire name is its snake_case (unless `renamed`).
 * Records are also the parts of union branches and messages (unions.ts), which compile several
 * records into one object literal: hence `entries`.
 */
export interface RecordField<F extends Fields> extends Field<RecordOf<F>, Record<string, unknown>> {
  readonly shape: Extract<Shape, { kind: "record" }>;
  readonly entries: readonly Entry[];
}

/**
 * Compiles the copy functions of records once per definition, as avsc compiles its own readers: a
 * generic loop over fields with computed keys pays megamorphic loads and stores for every field of
 * every record, and decoding runs once per record on the replay of the journal. `props` are the
 * properties of an object literal, each a [key, JavaScript expression] pair; the keys are our
 * definitions' (never input) and go in as JSON string literals.
 */
export class Compiler {
  private readonly fns: unknown[] = [];

  /** The properties copying `entries` from the object named `from` (direction: to Avro or from it). */
  copy(entries: readonly Entry[], from: string, toAvro: boolean): Array<[string, string]> {
    return entries.map((e) => {
      const [src, dst] = toAvro ? [e.key, e.wire] : [e.wire, e.key];
      const read = `${from}[${JSON.stringify(src)}]`;
      if (e.f.plain) return [dst, read];
      this.fns.push(toAvro ? e.f.toAvro : e.f.fromAvro);
      return [dst, `f[${this.fns.length - 1}](${read})`];
    });
  }

  literal(props: ReadonlyArray<[string, string]>): string {
    return `{ ${props.map(([k, v]) => `${JSON.stringify(k)}: ${v}`).join(", ")} }`;
  }

  /** A function of `params` answering `expression`. */
  build<Fn>(params: string, expression: string): Fn {
    return new Function("f", `return (${params}) => (${expression});`)(this.fns) as Fn;
  }
}

export function record<F extends Fields>(fields: F): RecordField<F> {
  const entries = Object.entries(fields).map(([key, f]) => ({ key, wire: f.wireName ?? snakeCase(key), f }));
  const checked = entries.filter((e) => e.f.checks);
  const c = new Compiler();
  return {
    shape: { kind: "record", fields: new Map(entries.map((e) => [e.wire, e.f.shape])) },
    entries,
    ...(entries.every((e) => e.f.json) && {
      json: () => z.object(Object.fromEntries(entries.map((e) => [e.key, jsonOf(e.f)]))),
    }),
    checks: checked.length > 0,
    toAvro: c.build("a", c.literal(c.copy(entries, "a", true))),
    // A fresh plain object, never avsc's record instance: callers compare and spread what they get.
    fromAvro: c.build("a", c.literal(c.copy(entries, "a", false))),
    check: (a, path, issues) => {
      for (const e of checked) e.f.check(a[e.wire], path ? `${path}.${e.wire}` : e.wire, issues);
    },
  };
}
