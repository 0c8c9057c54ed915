import fc from "fast-check";

/**
 * Generated requests for the gateway's write routes, read from the OpenAPI document it publishes, so a
 * route added later is generated for without a change here. Each part of a request (credentials, path
 * ids, headers, body) comes with `fault`: whether that part alone makes the request one the service
 * must refuse. A request is only ever built with at least one fault, so "never accepted" is a claim
 * about the service, not about luck. Parts that are not faults (the right key, a real session id, a
 * body the schema accepts) are there to carry the faulty ones past the outer checks to deeper code.
 */

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
}

export interface Operation {
  method: "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI form: /sessions/{id}/commit. */
  path: string;
  pathParams: string[];
  headerParams: string[];
  body: JsonSchema | null;
}

export interface Part<T> {
  value: T;
  fault: boolean;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type OpenApi = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Array<{ in: string; name: string }>;
        requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
      }
    >
  >;
};

const WRITE_METHODS = ["post", "put", "patch", "delete"];

/** Every write operation of the document. */
export function writeOperations(doc: OpenApi): Operation[] {
  const ops: Operation[] = [];
  for (const [path, byMethod] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(byMethod)) {
      if (!WRITE_METHODS.includes(method)) continue;
      const params = op.parameters ?? [];
      ops.push({
        method: method.toUpperCase() as Operation["method"],
        path,
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        headerParams: params.filter((p) => p.in === "header").map((p) => p.name),
        body: op.requestBody?.content?.["application/json"]?.schema ?? null,
      });
    }
  }
  return ops;
}

const ok = <T>(value: T): Part<T> => ({ value, fault: false });
const bad = <T>(value: T): Part<T> => ({ value, fault: true });

/** Hex of `bytes` random bytes, 0x-prefixed: the right length for a signature, a key or a salt. */
export const hexOf = (bytes: number) =>
  fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => `0x${Buffer.from(b).toString("hex")}`);

/**
 * Real values by field name (chain ids of the stack, a real burner, a future deadline), mixed with
 * random ones so a body gets past the cheap checks to the deep ones. Never a signature: a real one
 * would make a generated body acceptable. `[key]` is for the keys of a map (chain ids of signatures).
 */
export type Hints = Record<string, fc.Arbitrary<Json>>;

/** A value the schema accepts (as far as this reader of JSON Schema knows), with random contents. */
export function conforming(schema: JsonSchema, hints: Hints = {}): fc.Arbitrary<Json> {
  if (schema.anyOf) return fc.oneof(...schema.anyOf.map((s) => conforming(s, hints)));
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case "object": {
      const props = Object.entries(schema.properties ?? {});
      if (props.length === 0 && schema.propertyNames && typeof schema.additionalProperties === "object") {
        const value = schema.additionalProperties;
        const key = fc.integer({ min: 1, max: 100_000 }).map(String);
        const keys = hints["[key]"] ? fc.oneof(hints["[key]"].map(String), key) : key;
        return fc.dictionary(keys, conforming(value, hints), {
          minKeys: 1,
          maxKeys: 3,
        });
      }
      const required = new Set(schema.required ?? []);
      const shape = Object.fromEntries(
        props.map(([k, s]) => {
          const hint = hints[k];
          return [k, hint ? fc.oneof(hint, conforming(s, hints)) : conforming(s, hints)];
        }),
      );
      const optional = props.map(([k]) => k).filter((k) => !required.has(k));
      return fc.record(shape, { requiredKeys: [...required].filter((k) => k in shape) }).map((o) => {
        for (const k of optional) if (o[k] === undefined) delete o[k];
        return o as Json;
      });
    }
    case "integer": {
      const min = schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : (schema.minimum ?? 0);
      return fc.integer({ min, max: Math.min(schema.maximum ?? 2 ** 31, 2 ** 40) });
    }
    case "number":
      return fc.double({ noNaN: true, noDefaultInfinity: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "string":
      return conformingString(schema);
    default:
      return fc.jsonValue() as fc.Arbitrary<Json>;
  }
}

function conformingString(schema: JsonSchema): fc.Arbitrary<Json> {
  const max = schema.maxLength ?? 64;
  if (schema.pattern) {
    const re = new RegExp(schema.pattern);
    // 0x hex of a signature's, a word's, a key's or an address's length: the first the pattern takes.
    for (const bytes of [65, 32, 33, 20]) if (re.test(`0x${"ab".repeat(bytes)}`)) return hexOf(bytes);
    if (re.test("1000000")) return fc.bigInt({ min: 1n, max: 10n ** 12n }).map(String);
    return fc.stringMatching(re).filter((v) => v.length <= max);
  }
  return fc.string({ minLength: Math.max(1, schema.minLength ?? 1), maxLength: max });
}

/** True when the body is certainly refused by the schema (a conservative reading: false when unsure). */
export function violates(schema: JsonSchema, body: Json): boolean {
  if (schema.anyOf) return schema.anyOf.every((s) => violates(s, body));
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "null") return body !== null;
  if (type !== "object") return false;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return true;
  const props = schema.properties ?? {};
  if (schema.additionalProperties === false && Object.keys(body).some((k) => !(k in props))) return true;
  return (schema.required ?? []).some((k) => !Object.hasOwn(body, k));
}

/** The same body with one certain fault: a required field gone or of the wrong type, or an unknown key. */
function withFault(schema: JsonSchema, hints: Hints): fc.Arbitrary<Json> {
  const objectSchema = schema.anyOf?.find((s) => s.type === "object") ?? schema;
  const required = objectSchema.required ?? [];
  const faults: Array<fc.Arbitrary<Json>> = [];
  if (objectSchema.additionalProperties === false)
    faults.push(
      fc
        .tuple(conforming(objectSchema, hints), fc.string({ minLength: 1, maxLength: 20 }), fc.jsonValue())
        .filter(([, k]) => !(k in (objectSchema.properties ?? {})) && k !== "__proto__")
        .map(([o, k, v]) => ({ ...(o as object), [k]: v as Json })),
    );
  if (required.length > 0)
    faults.push(
      fc
        .tuple(conforming(objectSchema, hints), fc.constantFrom(...required), wrongTypeArb)
        .map(([o, k, v]) => {
          const copy = { ...(o as Record<string, Json>) };
          if (v === undefined) delete copy[k];
          else copy[k] = wrongTypeFor(objectSchema.properties?.[k], v);
          return copy;
        }),
    );
  return faults.length > 0 ? fc.oneof(...faults) : fc.constant([] as Json);
}

const wrongTypeArb = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 2 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 30 }),
);

/** v if its JSON type differs from the property's, else a value of another type. */
function wrongTypeFor(prop: JsonSchema | undefined, v: Json | boolean): Json {
  const types = prop?.anyOf?.map((s) => s.type) ?? [prop?.type];
  const kind = v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
  const clash =
    types.includes(kind) ||
    (kind === "number" && types.includes("integer")) ||
    (kind === "object" && types.includes("object"));
  if (!clash) return v as Json;
  return types.includes("string") ? [[]] : "not of this type";
}

/** Field names whose values are signatures: random bytes of the right length there are a certain fault. */
const SIGNATURE_FIELD = /^(r|s|signature|signatures|intent_sigs)$/;
function holdsSignature(schema: JsonSchema): boolean {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).some(
    ([k, s]) => required.has(k) && (SIGNATURE_FIELD.test(k) || holdsSignature(s)),
  );
}

const contentTypes = fc.constantFrom(
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/jsonx",
  "application/octet-stream",
  "json",
);

/** The request body and its content type. */
export function bodyPart(
  schema: JsonSchema | null,
  hints: Hints = {},
): fc.Arbitrary<Part<{ text?: string; type?: string }>> {
  const json = (v: Json) => JSON.stringify(v) ?? "null";
  const typed = (text: string) => ({ text, type: "application/json" });
  const notJson = fc
    .string({ maxLength: 200 })
    .filter((t) => {
      try {
        JSON.parse(t);
        return false;
      } catch {
        return t.trim().length > 0;
      }
    })
    .map((t) => bad(typed(t)));
  const wrongType = fc
    .tuple(fc.jsonValue(), contentTypes)
    .map(([v, type]) => bad({ text: json(v as Json), type }));
  if (schema === null)
    return fc.oneof(
      fc.constant(ok({})),
      fc.jsonValue().map((v) => ok(typed(json(v as Json)))),
      notJson,
      wrongType,
    );
  return fc.oneof(
    fc.jsonValue().map((v) => ({ value: typed(json(v as Json)), fault: violates(schema, v as Json) })),
    withFault(schema, hints).map((v) => bad(typed(json(v)))),
    // Weighted: the bodies that pass the schema are the ones that reach the deep checks.
    {
      arbitrary: conforming(schema, hints).map((v) => ({
        value: typed(json(v)),
        fault: holdsSignature(schema),
      })),
      weight: 4,
    },
    notJson,
    wrongType,
    // No body at all: a fault where the schema takes no absent body (a nullable one does).
    fc.constant({ value: {}, fault: schema.anyOf === undefined }),
  );
}

/** Header values fetch can send: Latin-1 without controls (NUL, CR, LF, DEL are refused by the client). */
export const headerJunk = fc
  .string({
    unit: fc
      .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }), fc.constant(0x09))
      .map((c) => String.fromCharCode(c)),
    maxLength: 120,
  })
  .map((s) => s.trim());

/** Idempotency-Key: printable ASCII, 1 to 255 characters, is a fine key; anything else a fault. */
export const idempotencyKeyPart: fc.Arbitrary<Part<string | undefined>> = fc.oneof(
  fc.constant(ok(undefined)),
  fc.uuid().map(ok),
  headerJunk.map((k) => ({ value: k, fault: k.length > 255 || /[^\x21-\x7e]/.test(k) })),
  fc
    .string({ minLength: 256, maxLength: 400 })
    .map((k) => bad(k.replace(/\s/g, "x").replace(/[^\x21-\x7e]/g, "x"))),
);

/** A path id: something that names nothing (a fault), or one of the given real ids (not a fault). */
export function pathIdPart(
  real: readonly string[],
  refused: readonly string[] = [],
): fc.Arbitrary<Part<string>> {
  const arbs: Array<fc.Arbitrary<Part<string>>> = [
    fc.string({ maxLength: 80 }).map(bad),
    fc.string({ unit: "grapheme", maxLength: 40 }).map(bad),
    fc.uuid().map(bad),
    fc.constantFrom("not-a-uuid", "0", "-1", "' OR 1=1 --", "%00", "a".repeat(600), "null", "{id}").map(bad),
  ];
  if (refused.length > 0) arbs.push(fc.constantFrom(...refused).map(bad));
  // As often as all the rest: a real id carries the other parts' faults to the deep checks.
  if (real.length > 0) return fc.oneof(fc.oneof(...arbs), fc.constantFrom(...real).map(ok));
  return fc.oneof(...arbs);
}
