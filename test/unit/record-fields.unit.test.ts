import { describe, expect, it } from "vitest";
import { schemaSet, singleObjectWire, typeForSchema } from "../../src/kafka/avro.ts";
import { createCodecs } from "../../src/kafka/codecs.ts";
import * as f from "../../src/record-fields/fields.ts";
import { matchSchema } from "../../src/record-fields/match.ts";
import { union } from "../../src/record-fields/unions.ts";

const schema = (fields: unknown[]) =>
  typeForSchema({ type: "record", name: "settlement.v1.T", fields }).schema();

describe("a record definition is compared with its .avsc", () => {
  const def = f.record({
    chainId: f.number,
    txHash: f.hex,
    from: f.renamed("from_address", f.address),
    note: f.nullable(f.string),
    tags: f.array(f.string),
  });
  const fields = [
    { name: "chain_id", type: "long" },
    { name: "tx_hash", type: "string" },
    { name: "from_address", type: "string" },
    { name: "note", type: ["null", "string"], default: null },
    { name: "tags", type: { type: "array", items: "string" } },
  ];

  it("finds nothing when they agree", () => {
    expect(matchSchema(def.shape, schema(fields))).toEqual([]);
  });

  it("names a field the schema has and the definition lacks, and the reverse", () => {
    const more = [...fields.slice(1), { name: "extra", type: "int" }];
    expect(matchSchema(def.shape, schema(more))).toEqual([
      "chain_id: not in the schema",
      "extra: in the schema but not in the definition",
    ]);
  });

  it("names a field whose type differs", () => {
    const changed = fields.map((x) => (x.name === "note" ? { name: "note", type: "string" } : x));
    expect(matchSchema(def.shape, schema(changed))).toEqual([
      'note: the definition is nullable, the schema is not ["null", T]',
    ]);
  });

  it("names a union branch missing on either side", () => {
    const u = f.record({ work: union({ Sweep: { amount: f.amount }, Charge: {} }) });
    const sweep = { type: "record", name: "Sweep", fields: [{ name: "amount", type: "string" }] };
    const refund = { type: "record", name: "Refund", fields: [] };
    expect(matchSchema(u.shape, schema([{ name: "work", type: [sweep, refund] }]))).toEqual([
      "work.Charge: no such branch in the schema",
      "work.Refund: a branch of the schema missing from the definition",
    ]);
  });

  it("holds for every record of every topic (a drift would stop createCodecs)", () => {
    expect(() => createCodecs(singleObjectWire(schemaSet()))).not.toThrow();
  });
});

describe("definitions map TypeScript values to avsc's and back", () => {
  const def = f.record({
    blockNumber: f.blockNumber,
    amount: f.amount,
    work: union({ Sweep: { burner: f.address }, Stop: {} }),
  });
  const value = {
    blockNumber: 7n,
    amount: 2n ** 256n - 1n,
    work: { type: "Sweep" as const, burner: `0x${"ab".repeat(20)}` as const },
  };
  const avro = {
    block_number: 7,
    amount: (2n ** 256n - 1n).toString(),
    work: { "settlement.v1.Sweep": { burner: `0x${"ab".repeat(20)}` } },
  };

  it("renames keys, turns bigints into Avro's numbers and strings, and tags unions", () => {
    expect(def.toAvro(value)).toEqual(avro);
    expect(def.fromAvro(avro)).toEqual(value);
  });

  it("reports every problem with its path", () => {
    const issues: string[] = [];
    def.check({ ...avro, amount: "-1", work: { "settlement.v1.Sweep": { burner: "0x1" } } }, "", issues);
    expect(issues).toEqual([
      "amount: must be a decimal integer string",
      "work.Sweep.burner: must be a 0x address",
    ]);
  });

  it("refuses a block number past 2^53 rather than rounding it", () => {
    expect(() => def.toAvro({ ...value, blockNumber: 2n ** 60n })).toThrow(RangeError);
  });
});

describe("the JSON schema of a definition (an HTTP response carrying the same object)", () => {
  it("names the TypeScript keys, keeps descriptions and vocabularies, and strips other keys", () => {
    const def = f.record({
      chainId: f.number,
      status: f.oneOf(["a", "b"]),
      at: f.described("ISO 8601", f.string),
      note: f.nullable(f.string),
    });
    const schema = f.jsonSchemaOf(def);
    expect(schema.parse({ chainId: 1, status: "a", at: "x", note: null, secret: 1 })).toEqual({
      chainId: 1,
      status: "a",
      at: "x",
      note: null,
    });
    expect(() => schema.parse({ chainId: 1, status: "c", at: "x", note: null })).toThrow();
    expect(schema.shape.at.description).toBe("ISO 8601");
  });

  it("refuses a definition whose value is not JSON (a bigint)", () => {
    expect(() => f.jsonSchemaOf(f.record({ amount: f.amount }))).toThrow(/no JSON form/);
  });
});
