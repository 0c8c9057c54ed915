import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import avro from "avsc";
import { BaseError } from "../support/errors.ts";

/**
 * Avro framing of every record on our topics. By default the Avro single-object encoding: the marker
 * C3 01, the 8-byte little-endian CRC-64-AVRO fingerprint of the writer schema's Parsing Canonical Form,
 * then the binary body, so anyone holding schemas/ can decode a record without our code. (There is no
 * schema registry wire format: docs/DESIGN.md, "The record contract", says why.)
 */

export type AvroType = avro.Type;

export const SCHEMAS_DIR = fileURLToPath(new URL("../../schemas/", import.meta.url));

const MARKER_0 = 0xc3;
const MARKER_1 = 0x01;
/** Marker (2 bytes) + fingerprint (8 bytes). */
export const SINGLE_OBJECT_HEADER_BYTES = 10;

// ---------------------------------------------------------------------------------------------------
// Fingerprints

/** The spec's EMPTY value: both the seed of every fingerprint and the (reversed) Rabin polynomial. */
const RABIN_EMPTY = 0xc15d213aa4d7a795n;

/** Byte-at-a-time lookup table, derived from the polynomial as the Avro specification describes. */
const RABIN_TABLE: readonly bigint[] = Array.from({ length: 256 }, (_, i) => {
  let fp = BigInt(i);
  for (let bit = 0; bit < 8; bit++) fp = (fp >> 1n) ^ (RABIN_EMPTY & -(fp & 1n));
  return fp;
});

/**
 * CRC-64-AVRO: the 64-bit Rabin fingerprint of the Avro specification ("Schema Fingerprints"), as an
 * unsigned bigint. BigInt is slow but this runs once per schema, never per record.
 */
export function rabinFingerprint64(data: Uint8Array | string): bigint {
  const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
  let fp = RABIN_EMPTY;
  for (const b of bytes) fp = (fp >> 8n) ^ (RABIN_TABLE[Number((fp ^ BigInt(b)) & 0xffn)] as bigint);
  return fp;
}

/**
 * The schema's Parsing Canonical Form. avsc's default `schema()` export already applies the spec's
 * rules (full names, only parsing attributes in the spec's order, no logical types, no whitespace);
 * the spec's own test vectors in test/unit/avro.unit.test.ts hold it to that.
 */
export function parsingCanonicalForm(type: AvroType): string {
  return JSON.stringify(type.schema());
}

/** The 8 fingerprint bytes as they appear in a single-object header (little-endian). */
export function fingerprintBytes(fp: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(fp);
  return b;
}

/** How fingerprints are shown in messages and docs: the 64-bit value in hex, like other Avro tools. */
export const formatFingerprint = (fp: bigint): string => `0x${fp.toString(16).padStart(16, "0")}`;

// ---------------------------------------------------------------------------------------------------
// Schemas

export interface LoadedSchema {
  /** Full name of the top-level record, e.g. settlement.v1.SessionEvent. */
  name: string;
  /** Path relative to the schemas directory. */
  file: string;
  type: AvroType;
  canonical: string;
  fingerprint: bigint;
}

export interface SchemaSet {
  /** The current schema of every record, by full name. */
  current: ReadonlyMap<string, LoadedSchema>;
  /** Every schema we can read as a writer: current ones and old versions kept in schemas/history/. */
  byFingerprint: ReadonlyMap<bigint, LoadedSchema>;
  get(name: string): LoadedSchema;
}

/** Builds the Avro type of a schema the same way everywhere (default avsc options: unions wrapped only when ambiguous). */
export const typeForSchema = (schema: unknown): AvroType => avro.Type.forSchema(schema as avro.Schema);

function loadSchemaFile(dir: string, path: string): LoadedSchema {
  const text = readFileSync(path, "utf8");
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new Error(`schema ${path} is not valid JSON`, { cause });
  }
  const type = typeForSchema(parsed);
  if (!type.name) throw new Error(`schema ${path} must be a named type (a record)`);
  const canonical = parsingCanonicalForm(type);
  return {
    name: type.name,
    file: relative(dir, path),
    type,
    canonical,
    fingerprint: rabinFingerprint64(canonical),
  };
}

function avscFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries
    .filter((f) => f.endsWith(".avsc"))
    .sort()
    .map((f) => join(dir, f));
}

function historyFiles(dir: string): string[] {
  const root = join(dir, "history");
  try {
    return readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((f) => f.endsWith(".avsc"))
      .sort()
      .map((f) => join(root, f));
  } catch {
    return [];
  }
}

/** Reads every schema of `dir` (top level: current versions; history/: old writer versions). */
export function loadSchemaSet(dir: string = SCHEMAS_DIR): SchemaSet {
  const current = new Map<string, LoadedSchema>();
  const byFingerprint = new Map<bigint, LoadedSchema>();
  for (const path of avscFiles(dir)) {
    const s = loadSchemaFile(dir, path);
    if (current.has(s.name)) throw new Error(`two schema files define ${s.name}`);
    current.set(s.name, s);
    byFingerprint.set(s.fingerprint, s);
  }
  for (const path of historyFiles(dir)) {
    const s = loadSchemaFile(dir, path);
    // A history file equal to the current schema adds nothing; keep the current entry.
    if (!byFingerprint.has(s.fingerprint)) byFingerprint.set(s.fingerprint, s);
  }
  return {
    current,
    byFingerprint,
    get(name) {
      const s = current.get(name);
      if (!s) throw new Error(`no schema ${name} in ${dir} (known: ${[...current.keys()].join(", ")})`);
      return s;
    },
  };
}

let defaultSet: SchemaSet | undefined;
/** The schemas of the repository's schemas/ directory, read once. */
export function schemaSet(): SchemaSet {
  defaultSet ??= loadSchemaSet();
  return defaultSet;
}

// ---------------------------------------------------------------------------------------------------
// Errors

/** A record that cannot be decoded. Terminal: retrying the same bytes gives the same answer. */
export class AvroDecodeError extends BaseError {
  override name = "AvroDecodeError";
  readonly code: string = "record_malformed";
  readonly retryable: boolean = false;
}

/** The record names a writer schema this process does not know (a newer writer's). */
export class UnknownSchemaError extends AvroDecodeError {
  override name = "UnknownSchemaError";
  override readonly code = "record_schema_unknown";
}

// ---------------------------------------------------------------------------------------------------
// Serdes

/** Encodes values of one record schema and decodes any writer version of it into the current shape. */
export interface AvroSerde {
  readonly schema: LoadedSchema;
  /** `value` in avsc's representation of the current schema. */
  encode(value: unknown): Buffer;
  /** Throws AvroDecodeError (UnknownSchemaError for a writer schema it has not seen). */
  decode(buf: Buffer): unknown;
}

export interface WireFormat {
  /** The serde of the record `schemaName` (its full name), built once. */
  serde(schemaName: string): AvroSerde;
}

// One scratch buffer for all encoders: encoding is synchronous, so no two encodes interleave.
let scratch = Buffer.allocUnsafe(64 * 1024);

function frame(header: Buffer, type: AvroType, value: unknown): Buffer {
  header.copy(scratch, 0);
  let end = type.encode(value, scratch, header.length);
  if (end < 0) {
    // avsc answers minus the number of missing bytes.
    scratch = Buffer.allocUnsafe(Math.max(scratch.length * 2, scratch.length - end));
    header.copy(scratch, 0);
    end = type.encode(value, scratch, header.length);
  }
  const out = Buffer.allocUnsafe(end);
  scratch.copy(out, 0, 0, end);
  return out;
}

function readBody(type: AvroType, buf: Buffer, offset: number, resolver?: avro.Resolver): unknown {
  let result: { value: unknown; offset: number };
  try {
    result = type.decode(buf, offset, resolver);
  } catch (cause) {
    throw new AvroDecodeError(`${type.name}: malformed record body: ${(cause as Error).message}`, { cause });
  }
  if (result.offset < 0) throw new AvroDecodeError(`${type.name}: truncated record body`);
  if (result.offset !== buf.length) {
    throw new AvroDecodeError(`${type.name}: ${buf.length - result.offset} bytes after the record body`);
  }
  return result.value;
}

/** Reader for a writer schema; resolvers are built once per writer. */
function resolverCache(reader: AvroType) {
  const cache = new Map<AvroType, avro.Resolver>();
  return (writer: AvroType): avro.Resolver => {
    let r = cache.get(writer);
    if (!r) {
      try {
        r = reader.createResolver(writer);
      } catch (cause) {
        throw new AvroDecodeError(
          `${reader.name} cannot read records written with ${writer.name ?? "an unnamed schema"}: ${(cause as Error).message}`,
          { cause },
        );
      }
      cache.set(writer, r);
    }
    return r;
  };
}

function decodeSingleObject(
  schemas: SchemaSet,
  reader: LoadedSchema,
  resolve: (w: AvroType) => avro.Resolver,
  fpLo: number,
  fpHi: number,
  buf: Buffer,
): unknown {
  if (buf.length < SINGLE_OBJECT_HEADER_BYTES || buf[0] !== MARKER_0 || buf[1] !== MARKER_1) {
    throw new AvroDecodeError(`${reader.name}: not an Avro single-object record (no C3 01 marker)`);
  }
  // Hot path: the writer used our current schema; two integer compares, no allocation.
  if (buf.readUInt32LE(2) === fpLo && buf.readUInt32LE(6) === fpHi) {
    return readBody(reader.type, buf, SINGLE_OBJECT_HEADER_BYTES);
  }
  const fp = buf.readBigUInt64LE(2);
  const writer = schemas.byFingerprint.get(fp);
  if (!writer) {
    throw new UnknownSchemaError(
      `${reader.name}: unknown writer schema fingerprint ${formatFingerprint(fp)}; ` +
        "a newer writer? Add its schema to schemas/ (or schemas/history/) to read it",
    );
  }
  return readBody(reader.type, buf, SINGLE_OBJECT_HEADER_BYTES, resolve(writer.type));
}

/** Single-object encoding with the fingerprints of `schemas`. */
export function singleObjectWire(schemas: SchemaSet = schemaSet()): WireFormat {
  const serdes = new Map<string, AvroSerde>();
  const make = (name: string): AvroSerde => {
    const schema = schemas.get(name);
    const header = Buffer.concat([Buffer.from([MARKER_0, MARKER_1]), fingerprintBytes(schema.fingerprint)]);
    const fpLo = header.readUInt32LE(2);
    const fpHi = header.readUInt32LE(6);
    const resolve = resolverCache(schema.type);
    const decode = (buf: Buffer) => decodeSingleObject(schemas, schema, resolve, fpLo, fpHi, buf);
    return {
      schema,
      encode: (value) => frame(header, schema.type, value),
      decode,
    };
  };
  return {
    serde(schemaName) {
      let s = serdes.get(schemaName);
      if (!s) {
        s = make(schemaName);
        serdes.set(schemaName, s);
      }
      return s;
    },
  };
}
