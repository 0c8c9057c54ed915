// Circle CCTP V2's message layout (src/contracts/README.md, "CCTP V2 message layout"): the header every
// MessageTransmitterV2 message carries and the TokenMessengerV2 burn body inside it. Used by the local
// attester to fill what it assigns (nonce, finality executed) and by whoever relays or inspects a transfer.
import {
  type Address,
  encodePacked,
  getAddress,
  type Hex,
  hexToBigInt,
  hexToNumber,
  pad,
  size,
  slice,
} from "viem";
import { BaseError } from "../../../support/errors.ts";

/** V2 finality thresholds: 1000 "confirmed" (fast transfer), 2000 "finalized" (standard transfer). */
export const FINALITY_CONFIRMED = 1000;
export const FINALITY_FINALIZED = 2000;
const HEADER_BYTES = 148;
const BURN_BODY_BYTES = 228;

export type CctpMessage = {
  version: number;
  sourceDomain: number;
  destinationDomain: number;
  /** bytes32; 0 as emitted, assigned by the attester. */
  nonce: Hex;
  sender: Hex;
  recipient: Hex;
  destinationCaller: Hex;
  minFinalityThreshold: number;
  /** 0 as emitted, set by the attester. */
  finalityThresholdExecuted: number;
  messageBody: Hex;
};

export type BurnMessageBody = {
  version: number;
  burnToken: Hex;
  mintRecipient: Hex;
  amount: bigint;
  messageSender: Hex;
  maxFee: bigint;
  feeExecuted: bigint;
  expirationBlock: bigint;
  hookData: Hex;
};

export class CctpMessageError extends BaseError<"cctp_message_malformed"> {
  override name = "CctpMessageError";
  readonly code = "cctp_message_malformed";
  readonly retryable = false;
}

export function addressToBytes32(address: Address): Hex {
  return pad(address, { size: 32 }).toLowerCase() as Hex;
}

export function bytes32ToAddress(value: Hex): Address {
  return getAddress(slice(value, 12, 32));
}

const u32 = (m: Hex, at: number) => hexToNumber(slice(m, at, at + 4));
const b32 = (m: Hex, at: number) => slice(m, at, at + 32);
const u256 = (m: Hex, at: number) => hexToBigInt(slice(m, at, at + 32));
const rest = (m: Hex, at: number): Hex => (size(m) === at ? "0x" : slice(m, at));

export function decodeMessage(message: Hex): CctpMessage {
  if (size(message) < HEADER_BYTES)
    throw new CctpMessageError(`message is ${size(message)} bytes, under 148`);
  return {
    version: u32(message, 0),
    sourceDomain: u32(message, 4),
    destinationDomain: u32(message, 8),
    nonce: b32(message, 12),
    sender: b32(message, 44),
    recipient: b32(message, 76),
    destinationCaller: b32(message, 108),
    minFinalityThreshold: u32(message, 140),
    finalityThresholdExecuted: u32(message, 144),
    messageBody: rest(message, HEADER_BYTES),
  };
}

export function encodeMessage(m: CctpMessage): Hex {
  return encodePacked(
    ["uint32", "uint32", "uint32", "bytes32", "bytes32", "bytes32", "bytes32", "uint32", "uint32", "bytes"],
    [
      m.version,
      m.sourceDomain,
      m.destinationDomain,
      m.nonce,
      m.sender,
      m.recipient,
      m.destinationCaller,
      m.minFinalityThreshold,
      m.finalityThresholdExecuted,
      m.messageBody,
    ],
  );
}

export function decodeBurnBody(body: Hex): BurnMessageBody {
  if (size(body) < BURN_BODY_BYTES) throw new CctpMessageError(`burn body is ${size(body)} bytes, under 228`);
  return {
    version: u32(body, 0),
    burnToken: b32(body, 4),
    mintRecipient: b32(body, 36),
    amount: u256(body, 68),
    messageSender: b32(body, 100),
    maxFee: u256(body, 132),
    feeExecuted: u256(body, 164),
    expirationBlock: u256(body, 196),
    hookData: rest(body, BURN_BODY_BYTES),
  };
}

export function encodeBurnBody(b: BurnMessageBody): Hex {
  return encodePacked(
    ["uint32", "bytes32", "bytes32", "uint256", "bytes32", "uint256", "uint256", "uint256", "bytes"],
    [
      b.version,
      b.burnToken,
      b.mintRecipient,
      b.amount,
      b.messageSender,
      b.maxFee,
      b.feeExecuted,
      b.expirationBlock,
      b.hookData,
    ],
  );
}
