// CCTP V2 message layout: field offsets as Circle documents them, and encode/decode as exact inverses.
import { type Hex, size, slice } from "viem";
import { describe, expect, it } from "vitest";
import {
  addressToBytes32,
  type BurnMessageBody,
  bytes32ToAddress,
  type CctpMessage,
  CctpMessageError,
  decodeBurnBody,
  decodeMessage,
  encodeBurnBody,
  encodeMessage,
} from "../../src/chains/evm/settle/cctp-message.ts";

const word = (byte: string) => `0x${byte.repeat(32)}` as Hex;
const body: BurnMessageBody = {
  version: 1,
  burnToken: word("11"),
  mintRecipient: word("22"),
  amount: 25_000_000n,
  messageSender: word("33"),
  maxFee: 7n,
  feeExecuted: 3n,
  expirationBlock: 99n,
  hookData: "0xdeadbeef",
};
const message: CctpMessage = {
  version: 1,
  sourceDomain: 100,
  destinationDomain: 101,
  nonce: word("aa"),
  sender: word("bb"),
  recipient: word("cc"),
  destinationCaller: word("dd"),
  minFinalityThreshold: 2000,
  finalityThresholdExecuted: 1000,
  messageBody: encodeBurnBody(body),
};

describe("CCTP V2 message", () => {
  it("puts each header field at Circle's offset", () => {
    const m = encodeMessage(message);
    expect(slice(m, 0, 4)).toBe("0x00000001");
    expect(slice(m, 4, 8)).toBe("0x00000064");
    expect(slice(m, 8, 12)).toBe("0x00000065");
    expect(slice(m, 12, 44)).toBe(word("aa"));
    expect(slice(m, 44, 76)).toBe(word("bb"));
    expect(slice(m, 76, 108)).toBe(word("cc"));
    expect(slice(m, 108, 140)).toBe(word("dd"));
    expect(slice(m, 140, 144)).toBe("0x000007d0");
    expect(slice(m, 144, 148)).toBe("0x000003e8");
    expect(slice(m, 148)).toBe(message.messageBody);
  });

  it("puts each burn body field at Circle's offset, hookData last", () => {
    const b = encodeBurnBody(body);
    expect(size(b)).toBe(228 + 4);
    expect(slice(b, 4, 36)).toBe(word("11"));
    expect(BigInt(slice(b, 68, 100))).toBe(25_000_000n);
    expect(BigInt(slice(b, 132, 164))).toBe(7n);
    expect(BigInt(slice(b, 164, 196))).toBe(3n);
    expect(BigInt(slice(b, 196, 228))).toBe(99n);
    expect(slice(b, 228)).toBe("0xdeadbeef");
  });

  it("decodes what it encodes, with and without hookData", () => {
    expect(decodeMessage(encodeMessage(message))).toEqual(message);
    expect(decodeBurnBody(encodeBurnBody(body))).toEqual(body);
    const bare = { ...body, hookData: "0x" as Hex };
    expect(decodeBurnBody(encodeBurnBody(bare))).toEqual(bare);
    const empty = { ...message, messageBody: "0x" as Hex };
    expect(decodeMessage(encodeMessage(empty))).toEqual(empty);
  });

  it("refuses a message or body shorter than its fixed part", () => {
    expect(() => decodeMessage(slice(encodeMessage(message), 0, 147))).toThrow(CctpMessageError);
    expect(() => decodeBurnBody(slice(encodeBurnBody(body), 0, 227))).toThrow(CctpMessageError);
  });

  it("maps addresses to left-padded bytes32 and back", () => {
    const a = "0x90F79bf6EB2c4f870365E785982E1f101E93b906";
    expect(addressToBytes32(a)).toBe(`0x${"0".repeat(24)}${a.slice(2).toLowerCase()}`);
    expect(bytes32ToAddress(addressToBytes32(a))).toBe(a);
  });
});
