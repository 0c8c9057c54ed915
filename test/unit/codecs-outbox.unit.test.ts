import { describe, expect, it } from "vitest";
import { singleObjectWire } from "../../src/kafka/avro.ts";
import type { Codec } from "../../src/kafka/codecs.ts";
import { codecs } from "../support/codecs.ts";
import { type RecordGen, recordGenerator } from "../support/generate-records.ts";

const RUNS = 300;

function roundTrips<T>(name: string, codec: Codec<T>, make: (g: RecordGen) => T, tag?: (v: T) => string) {
  it(`${name}: decode(encode(v)) equals v for ${RUNS} generated values`, () => {
    const tags = new Set<string>();
    for (let seed = 1; seed <= RUNS; seed++) {
      const value = make(recordGenerator(seed));
      const bytes = codec.encode(value);
      expect(codec.decode(bytes), `seed ${seed}`).toStrictEqual(value);
      expect(codec.decodeTrusted(bytes), `seed ${seed}, trusted`).toStrictEqual(value);
      if (tag) tags.add(tag(value));
    }
    // Every union branch was exercised (the schema's branch list, in order).
    if (tag) expect([...tags].sort()).toEqual(branches(name).sort());
  });
}

function branches(record: string): string[] {
  const serde = singleObjectWire().serde(`settlement.v1.${record}`);
  const fields = (serde.schema.type.schema() as { fields: Array<{ type: unknown }> }).fields;
  const union = fields.at(-1)?.type as Array<{ name: string }>;
  return union.map((b) => b.name.replace("settlement.v1.", ""));
}

describe("codecs of the executor, webhook and merchant topics round-trip", () => {
  roundTrips(
    "ExecutorCommand",
    codecs.executorCommand,
    (g) => g.executorCommand(),
    (v) => v.command.type,
  );
  roundTrips(
    "ExecutorResult",
    codecs.executorResult,
    (g) => g.executorResult(),
    (v) => v.result.type,
  );
  roundTrips("WebhookEvent", codecs.webhookEvent, (g) => g.webhookEvent());
  roundTrips(
    "MerchantCommand",
    codecs.merchantCommand,
    (g) => g.merchantCommand(),
    (v) => v.type,
  );
  roundTrips(
    "MerchantEvent",
    codecs.merchantEvent,
    (g) => g.merchantEvent(),
    (v) => v.type,
  );
});

describe("codecs of the executor topics validate what Avro cannot express", () => {
  const serde = singleObjectWire().serde("settlement.v1.ExecutorCommand");
  const sweep = (burner: string, amount: string) => ({
    command_id: "c",
    issued_at: 1,
    session_id: "s",
    chain_id: 1,
    command: { "settlement.v1.Sweep": { burner, token: `0x${"22".repeat(20)}`, amount } },
  });

  it("reads a valid record written without our codec", () => {
    const v = codecs.executorCommand.decode(serde.encode(sweep(`0x${"11".repeat(20)}`, "7")));
    expect(v.command).toEqual({
      type: "Sweep",
      burner: `0x${"11".repeat(20)}`,
      token: `0x${"22".repeat(20)}`,
      amount: 7n,
    });
  });

  it("rejects a burner that is not a 0x address", () => {
    expect(() => codecs.executorCommand.decode(serde.encode(sweep("0x12", "7")))).toThrow(
      /burner: must be a 0x address/,
    );
  });

  it("refuses to encode a negative amount", () => {
    const c = recordGenerator(1).executorCommand();
    const token = `0x${"22".repeat(20)}` as const;
    const bad = { ...c, command: { type: "Sweep", burner: token, token, amount: -1n } } as const;
    expect(() => codecs.executorCommand.encode(bad)).toThrow(/cannot encode settlement.v1.ExecutorCommand/);
  });

  it("refuses a tx hash that is neither 0x hex nor a base58 signature in a result", () => {
    const r = {
      ...recordGenerator(2).executorResult(),
      result: { type: "TransactionSubmitted", txHash: "abc!" },
    } as const;
    expect(() => codecs.executorResult.encode(r)).toThrow(/tx_hash: must be 0x hex or base58/);
  });
});
