import { readFileSync } from "node:fs";
import avsc from "avsc";
import { describe, expect, it } from "vitest";
// Only to produce the bytes: decoding below uses nothing but avsc and the .avsc files, as an outside
// consumer would.
import { codecs } from "../support/codecs.ts";
import { generator } from "../support/generate.ts";

const schemaPath = (name: string) => new URL(`../../schemas/${name}.avsc`, import.meta.url);

/**
 * CRC-64-AVRO computed bit by bit, without the lookup table of the production code: the same
 * polynomial division written the other way, so the two implementations check each other.
 */
function crc64Avro(text: string): bigint {
  const EMPTY = 0xc15d213aa4d7a795n;
  let fp = EMPTY;
  for (const byte of Buffer.from(text, "utf8")) {
    fp ^= BigInt(byte);
    for (let i = 0; i < 8; i++) fp = (fp >> 1n) ^ (EMPTY & -(fp & 1n));
  }
  return fp;
}

/** What an outside consumer does: read the schema file, check the header, decode the body. */
function decodeLikeAConsumer(name: string, bytes: Buffer): Record<string, unknown> {
  const type = avsc.Type.forSchema(JSON.parse(readFileSync(schemaPath(name), "utf8")));
  expect(bytes.subarray(0, 2).toString("hex")).toBe("c301");
  // Parsing Canonical Form: avsc's default schema export.
  expect(bytes.readBigUInt64LE(2)).toBe(crc64Avro(JSON.stringify(type.schema())));
  return type.fromBuffer(bytes.subarray(10));
}

const plain = (v: unknown) => JSON.parse(JSON.stringify(v));
const SEEDS = Array.from({ length: 40 }, (_, i) => i + 1);

describe("records decode with nothing but schemas/ and an Avro library", () => {
  it("the bit-by-bit fingerprint agrees with the specification's test vector", () => {
    expect(crc64Avro('"int"')).toBe(0x7275d51a3f395c8fn);
  });

  it.each(SEEDS)("SessionCommand (seed %i)", (seed) => {
    const c = generator(seed).command();
    const v = decodeLikeAConsumer("SessionCommand", codecs.sessionCommand.encode(c));
    expect(v).toMatchObject({
      command_id: c.metadata.commandId,
      issued_at: c.metadata.issuedAt,
      session_id: c.data.sessionId,
    });
    expect(Object.keys(v.command as object)).toEqual([`settlement.v1.${c.type}`]);
    if (c.type === "RecordTransfer") {
      const t = (v.command as Record<string, { transfer: Record<string, unknown> }>)[
        "settlement.v1.RecordTransfer"
      ];
      expect(t?.transfer.amount).toBe(c.data.transfer.amount.toString());
      expect(t?.transfer.from_address).toBe(c.data.transfer.from);
    }
  });

  it.each(SEEDS)("SessionEvent (seed %i)", (seed) => {
    const e = generator(seed).event();
    const v = decodeLikeAConsumer("SessionEvent", codecs.sessionEvent.encode(e));
    expect(v).toMatchObject({
      session_id: e.metadata.sessionId,
      version: e.metadata.version,
      command_id: e.metadata.commandId,
    });
    expect(Object.keys(v.event as object)).toEqual([`settlement.v1.${e.type}`]);
    if (e.type === "SessionCreated") {
      const d = (v.event as Record<string, Record<string, unknown>>)["settlement.v1.SessionCreated"];
      expect(d).toMatchObject({ flow: e.data.flow, burner: e.data.burner, merchant_id: e.data.merchantId });
      if (e.data.auth === null) expect(d?.auth).toBeNull();
      else expect(d?.auth).toMatchObject({ chain_id: e.data.auth.chainId, y_parity: e.data.auth.yParity });
    }
  });

  it.each(SEEDS)("TransferObserved (seed %i)", (seed) => {
    const t = generator(seed).transferObserved();
    const v = decodeLikeAConsumer("TransferObserved", codecs.transferObserved.encode(t));
    expect(v).toMatchObject({
      session_id: t.sessionId,
      amount: t.amount.toString(),
      block_number: Number(t.blockNumber),
      log_index: t.logIndex,
      retracted: t.retracted,
    });
  });

  it.each(SEEDS)("SessionState is the interface's Session object (seed %i)", (seed) => {
    const s = generator(seed).sessionState();
    const v = decodeLikeAConsumer("SessionState", codecs.sessionState.encode(s));
    const a = s.session.eip7702_auth;
    const avroAuth = a && {
      address: a.address,
      chain_id: a.chainId,
      nonce: a.nonce,
      r: a.r,
      s: a.s,
      y_parity: a.yParity,
    };
    expect(plain(v)).toEqual({
      version: s.version,
      session: { ...s.session, eip7702_auth: avroAuth },
    });
  });

  it.each(SEEDS)("GatewayReply (seed %i)", (seed) => {
    const r = generator(seed).gatewayReply();
    const v = decodeLikeAConsumer("GatewayReply", codecs.gatewayReply.encode(r));
    expect(v).toMatchObject({
      gateway_id: r.gatewayId,
      correlation_id: r.correlationId,
      status: r.status,
      code: r.code,
    });
    expect(v.session === null).toBe(r.session === null);
  });
});
