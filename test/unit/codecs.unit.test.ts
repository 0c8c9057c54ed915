import { describe, expect, it } from "vitest";
import { sessionView } from "../../src/domain/view.ts";
import { AvroDecodeError, schemaSet, singleObjectWire } from "../../src/kafka/avro.ts";
import type { Codec } from "../../src/kafka/codecs.ts";
import { codecs } from "../support/codecs.ts";
import { type Gen, generator } from "../support/generate.ts";

const RUNS = 300;

function roundTrips<T>(name: string, codec: Codec<T>, make: (g: Gen) => T) {
  it(`${name}: decode(encode(v)) equals v for ${RUNS} generated values`, () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const value = make(generator(seed));
      const bytes = codec.encode(value);
      expect(codec.decode(bytes), `seed ${seed}`).toStrictEqual(value);
      // The replay's path skips the zod checks; what it returns must not differ.
      expect(codec.decodeTrusted(bytes), `seed ${seed}, trusted`).toStrictEqual(value);
    }
  });
}

describe("codecs round-trip every record type", () => {
  roundTrips("SessionCommand", codecs.sessionCommand, (g) => g.command());
  roundTrips("SessionEvent", codecs.sessionEvent, (g) => g.event());
  roundTrips("TransferObserved", codecs.transferObserved, (g) => g.transferObserved());
  roundTrips("SessionState", codecs.sessionState, (g) => g.sessionState());
  roundTrips("GatewayReply", codecs.gatewayReply, (g) => g.gatewayReply());

  it("covers every command and event type", () => {
    const commands = new Set<string>();
    const events = new Set<string>();
    for (let seed = 1; seed <= RUNS; seed++) {
      commands.add(generator(seed).command().type);
      events.add(generator(seed).event().type);
    }
    expect([...commands].sort()).toEqual([
      "AttachStandingRefund",
      "CommitIntent",
      "CommitSolanaSweep",
      "CreateSession",
      "ExpireSession",
      "RecordTransfer",
      "RegisterBurner",
      "RequestRefund",
      "RequestRefundAll",
      "RequestSolanaRefund",
      "RetractTransfer",
    ]);
    expect([...events].sort()).toEqual([
      "BounceSetupAttached",
      "BridgeCompleted",
      "BurnerRegistered",
      "DepositObserved",
      "DepositRetracted",
      "IntentCommitted",
      "RefundRequested",
      "RefundUpdated",
      "RelayerGasSpent",
      "SessionCreated",
      "SessionExpired",
      "SettlementFailed",
      "SettlementRetried",
      "SolanaSweepCommitted",
      "StandingRefundAttached",
      "StealthAnnounceFailed",
      "StealthAnnounced",
      "SweepCompleted",
      "SweepSubmitted",
      "UnsupportedDepositObserved",
    ]);
  });
});

describe("SessionState schema", () => {
  it("has exactly the fields of the interface's Session object, in order", () => {
    const session = schemaSet().get("settlement.v1.SessionState").type.schema() as {
      fields: Array<{ name: string; type: { fields: Array<{ name: string }> } }>;
    };
    const avroFields = session.fields.find((f) => f.name === "session")?.type.fields.map((f) => f.name);
    expect(avroFields).toEqual(Object.keys(sessionView(generator(1).session())));
  });
});

describe("codecs validate what Avro cannot express", () => {
  const serde = singleObjectWire().serde("settlement.v1.SessionEvent");
  const expired = {
    session_id: "s",
    version: 2,
    occurred_at: 1,
    command_id: "c",
    event: { "settlement.v1.SessionExpired": {} },
  };
  const observed = (token: string, amount: string) => ({
    ...expired,
    event: {
      "settlement.v1.DepositObserved": {
        transfer: {
          chain_id: 1,
          token,
          amount,
          tx_hash: `0x${"ab".repeat(32)}`,
          log_index: 0,
          block_number: 5,
          block_hash: `0x${"cd".repeat(32)}`,
          from_address: `0x${"11".repeat(20)}`,
        },
      },
    },
  });

  it("accepts a valid record written without our codec", () => {
    expect(codecs.sessionEvent.decode(serde.encode(expired))).toMatchObject({ type: "SessionExpired" });
  });

  it("rejects a token that is not a 0x address", () => {
    const bytes = serde.encode(observed("0x1234", "1"));
    expect(() => codecs.sessionEvent.decode(bytes)).toThrow(/token: must be a 0x address/);
  });

  it("rejects an amount that is not a decimal integer", () => {
    const bytes = serde.encode(observed(`0x${"22".repeat(20)}`, "-5"));
    expect(() => codecs.sessionEvent.decode(bytes)).toThrow(AvroDecodeError);
  });

  it("rejects a flow outside the vocabulary", () => {
    // The first seed whose event is a SessionCreated (which seed that is moves as event types are added).
    const created = Array.from({ length: 100 }, (_, i) => generator(i + 1).event()).find(
      (e) => e.type === "SessionCreated",
    );
    if (created?.type !== "SessionCreated") throw new Error("no seed of 100 gives SessionCreated");
    const bytes = codecs.sessionEvent.encode(created);
    const raw = serde.decode(bytes) as { event: Record<string, { flow: string }> };
    const branch = raw.event["settlement.v1.SessionCreated"];
    if (!branch) throw new Error("expected SessionCreated branch");
    branch.flow = "teleport";
    expect(() => codecs.sessionEvent.decode(serde.encode(raw))).toThrow(/flow/);
  });

  it("refuses to encode what it could not decode", () => {
    const e = generator(11).event();
    const bad = {
      ...e,
      metadata: { ...e.metadata },
      type: "DepositObserved",
      data: { transfer: { ...generator(2).transfer(), amount: -1n }, finality: null },
    } as const;
    expect(() => codecs.sessionEvent.encode(bad)).toThrow(/cannot encode settlement.v1.SessionEvent/);
  });

  it("names the problem for bytes that are not a record", () => {
    expect(() => codecs.sessionEvent.decode(Buffer.from("{}"))).toThrow(/no C3 01 marker/);
  });
});
