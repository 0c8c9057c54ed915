import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import avsc from "avsc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  AvroDecodeError,
  fingerprintBytes,
  loadSchemaSet,
  parsingCanonicalForm,
  rabinFingerprint64,
  schemaSet,
  singleObjectWire,
  UnknownSchemaError,
} from "../../src/kafka/avro.ts";

/**
 * Test vectors of the Avro project (share/test/data/schema-tests.txt): an input schema, its Parsing
 * Canonical Form and the CRC-64-AVRO fingerprint of that form as a signed 64-bit integer.
 */
const VECTORS: Array<[input: string, canonical: string, fingerprint: bigint]> = [
  ['"null"', '"null"', 7195948357588979594n],
  ['{"type":"boolean"}', '"boolean"', -6970731678124411036n],
  ['"int"', '"int"', 8247732601305521295n],
  ['"long"', '"long"', -3434872931120570953n],
  ['"string"', '"string"', -8142146995180207161n],
  ['[ "int" , {"type":"boolean"} ]', '["int","boolean"]', 5392556393470105090n],
  [
    '{"fields":[], "type":"record", "name":"foo", "namespace":"x.y"}',
    '{"name":"x.y.foo","type":"record","fields":[]}',
    5916914534497305771n,
  ],
  [
    '{"fields":[{"type":"boolean", "aliases":[], "name":"f1", "default":true},{"order":"descending","name":"f2","doc":"Hello","type":"int"}], "type":"record", "name":"foo"}',
    '{"name":"foo","type":"record","fields":[{"name":"f1","type":"boolean"},{"name":"f2","type":"int"}]}',
    -4860222112080293046n,
  ],
  [
    '{"namespace":"x.y.z", "type":"enum", "name":"foo", "doc":"foo bar", "symbols":["A1", "A2"]}',
    '{"name":"x.y.z.foo","type":"enum","symbols":["A1","A2"]}',
    -4448647247586288245n,
  ],
  [
    '{"namespace":"x.y.z", "type":"fixed", "name":"foo", "doc":"foo bar", "size":32}',
    '{"name":"x.y.z.foo","type":"fixed","size":32}',
    -3064184465700546786n,
  ],
  ['{ "items":{"type":"null"}, "type":"array"}', '{"type":"array","items":"null"}', -589620603366471059n],
  ['{ "values":"string", "type":"map"}', '{"type":"map","values":"string"}', -8732877298790414990n],
  [
    '{"name":"PigValue","type":"record","fields":[{"name":"value", "type":["null", "int", "long", "PigValue"]}]}',
    '{"name":"PigValue","type":"record","fields":[{"name":"value","type":["null","int","long","PigValue"]}]}',
    -1759257747318642341n,
  ],
];

describe("schema fingerprints (CRC-64-AVRO over the Parsing Canonical Form)", () => {
  it.each(VECTORS)("%s", (input, canonical, fingerprint) => {
    const pcf = parsingCanonicalForm(avsc.Type.forSchema(JSON.parse(input)));
    expect(pcf).toBe(canonical);
    expect(BigInt.asIntN(64, rabinFingerprint64(pcf))).toBe(fingerprint);
  });

  it("drops logical types, docs and defaults from the canonical form", () => {
    const type = avsc.Type.forSchema({
      type: "record",
      name: "r",
      namespace: "n",
      doc: "d",
      fields: [{ name: "t", doc: "x", type: { type: "long", logicalType: "timestamp-millis" }, default: 0 }],
    });
    expect(parsingCanonicalForm(type)).toBe(
      '{"name":"n.r","type":"record","fields":[{"name":"t","type":"long"}]}',
    );
  });

  it('writes the header of the schema "int" as the specification shows: C3 01 8F 5C 39 3F 1A D5 75 72', () => {
    const header = Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprintBytes(rabinFingerprint64('"int"'))]);
    expect(header.toString("hex")).toBe("c3018f5c393f1ad57572");
  });
});

describe("single-object encoding", () => {
  const serde = singleObjectWire().serde("settlement.v1.SessionEvent");
  const value = {
    session_id: "s",
    version: 1,
    occurred_at: 5,
    command_id: "c",
    event: { "settlement.v1.SessionExpired": {} },
  };

  it("frames the body with the marker and the schema's fingerprint", () => {
    const bytes = serde.encode(value);
    expect(bytes.subarray(0, 2)).toEqual(Buffer.from([0xc3, 0x01]));
    expect(bytes.subarray(2, 10)).toEqual(
      fingerprintBytes(schemaSet().get("settlement.v1.SessionEvent").fingerprint),
    );
    expect(serde.schema.type.fromBuffer(bytes.subarray(10))).toMatchObject({ session_id: "s", version: 1 });
  });

  it("encodes values larger than its scratch buffer", () => {
    const big = { ...value, command_id: "x".repeat(200_000) };
    expect(serde.decode(serde.encode(big))).toMatchObject({ command_id: big.command_id });
  });

  it("names an unknown fingerprint", () => {
    const bytes = serde.encode(value);
    bytes.writeBigUInt64LE(0x1122334455667788n, 2);
    expect(() => serde.decode(bytes)).toThrow(UnknownSchemaError);
    expect(() => serde.decode(bytes)).toThrow(/unknown writer schema fingerprint 0x1122334455667788/);
  });

  it("refuses a record of another schema it cannot resolve", () => {
    const other = singleObjectWire().serde("settlement.v1.WebhookEvent");
    const bytes = other.encode({
      idempotency_key: "k",
      merchant_id: "m",
      event_type: "payment.detected",
      session_id: null,
      payload: "{}",
      created_at: 1,
    });
    expect(() => serde.decode(bytes)).toThrow(/cannot read records written with settlement.v1.WebhookEvent/);
  });

  it("refuses truncated bodies, trailing bytes and missing markers", () => {
    const bytes = serde.encode(value);
    expect(() => serde.decode(bytes.subarray(0, bytes.length - 1))).toThrow(AvroDecodeError);
    expect(() => serde.decode(Buffer.concat([bytes, Buffer.from([0])]))).toThrow(
      /bytes after the record body/,
    );
    expect(() => serde.decode(bytes.subarray(1))).toThrow(/no C3 01 marker/);
  });
});

describe("older writer schemas", () => {
  const v1 = { type: "record", name: "Thing", namespace: "t", fields: [{ name: "a", type: "string" }] };
  const v2 = {
    ...v1,
    fields: [...v1.fields, { name: "b", type: ["null", "long"], default: null, doc: "added later" }],
  };
  let dirV1: string;
  let dirV2: string;
  beforeAll(() => {
    dirV1 = mkdtempSync(join(tmpdir(), "avro-v1-"));
    dirV2 = mkdtempSync(join(tmpdir(), "avro-v2-"));
    writeFileSync(join(dirV1, "Thing.avsc"), JSON.stringify(v1));
    writeFileSync(join(dirV2, "Thing.avsc"), JSON.stringify(v2));
    mkdirSync(join(dirV2, "history", "Thing"), { recursive: true });
    writeFileSync(join(dirV2, "history", "Thing", "v1.avsc"), JSON.stringify(v1));
  });
  afterAll(() => {
    rmSync(dirV1, { recursive: true, force: true });
    rmSync(dirV2, { recursive: true, force: true });
  });

  it("are read through schemas/history/ by fingerprint, filling defaults", () => {
    const old = singleObjectWire(loadSchemaSet(dirV1)).serde("t.Thing");
    const current = singleObjectWire(loadSchemaSet(dirV2)).serde("t.Thing");
    expect(current.decode(old.encode({ a: "x" }))).toMatchObject({ a: "x", b: null });
  });

  it("are unknown without the history file", () => {
    const old = singleObjectWire(loadSchemaSet(dirV1)).serde("t.Thing");
    rmSync(join(dirV2, "history"), { recursive: true });
    const current = singleObjectWire(loadSchemaSet(dirV2)).serde("t.Thing");
    expect(() => current.decode(old.encode({ a: "x" }))).toThrow(UnknownSchemaError);
  });
});
