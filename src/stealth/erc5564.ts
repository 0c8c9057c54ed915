import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, hexToBytes } from "@noble/hashes/utils";

/**
 * ERC-5564 scheme 1 (secp256k1 with view tags), the EVM stealth scheme of Flow D (docs/STEALTH.md).
 * Pure: every secret arrives as an argument, so the sender side (the gateway, with a fresh ephemeral
 * key per session) and the recipient side (the client library's scanner) are this one file.
 *
 *   shared   S   = r * P_view                 (compressed, 33 bytes; r the ephemeral private key)
 *   s_h         = keccak256(S)                view tag = s_h[0]
 *   P_stealth   = P_spend + (s_h mod n) * G   stealth address = keccak256(P_stealth uncompressed)[12..]
 *   p_stealth   = p_spend + s_h mod n         (the recipient, from S = p_view * R)
 */

export type Hex = `0x${string}`;

/** The ERC-5564 announcer's canonical address (the same on every chain the standard's deployer reached). */
export const ERC5564_ANNOUNCER = "0x55649E01B5Df198D18D95b5cc5051630cfD45564";

/** The ERC-5564 scheme id this file implements: the Announcement event's `schemeId`. */
export const ERC5564_SCHEME_ID = 1n;
/** The scheme's name in GET /sessions/:id/stealth (docs/STEALTH.md). */
export const ERC5564_SCHEME = "erc5564-1";

const META_PREFIX = "st:eth:0x";
const N = secp256k1.CURVE.n;

/** A stealth meta-address's two public keys, compressed, lower-case 0x hex (33 bytes each). */
export interface MetaAddress {
  spendPubkey: Hex;
  viewPubkey: Hex;
}

/** What the sender publishes and where the money goes. */
export interface StealthDerivation {
  stealthAddress: Hex;
  /** R = r * G, compressed. */
  ephemeralPubkey: Hex;
  viewTag: number;
}

const hex = (b: Uint8Array): Hex => `0x${bytesToHex(b)}`;
const bytes = (h: string): Uint8Array => hexToBytes(h.startsWith("0x") ? h.slice(2) : h);

/**
 * A compressed secp256k1 point as given, checked to be on the curve (and not the identity), in
 * lower-case 0x hex; null when it is not one.
 */
export function compressedPoint(value: string): Hex | null {
  if (!/^0x0[23][0-9a-fA-F]{64}$/.test(value)) return null;
  try {
    secp256k1.ProjectivePoint.fromHex(bytes(value)).assertValidity();
    return value.toLowerCase() as Hex;
  } catch {
    return null;
  }
}

/** `st:eth:0x<spend 33 bytes><view 33 bytes>`, both keys points of the curve; null otherwise. */
export function parseMetaAddress(value: string): MetaAddress | null {
  if (!value.startsWith(META_PREFIX) || value.length !== META_PREFIX.length + 132) return null;
  const body = value.slice(META_PREFIX.length);
  const spendPubkey = compressedPoint(`0x${body.slice(0, 66)}`);
  const viewPubkey = compressedPoint(`0x${body.slice(66)}`);
  return spendPubkey && viewPubkey ? { spendPubkey, viewPubkey } : null;
}

export const formatMetaAddress = (m: MetaAddress): string =>
  `${META_PREFIX}${m.spendPubkey.slice(2)}${m.viewPubkey.slice(2)}`;

/** s_h as a scalar: keccak256 of the compressed shared point, reduced mod n. */
function hashedSecret(shared: Uint8Array): { scalar: bigint; viewTag: number } {
  const digest = keccak_256(shared);
  const scalar = BigInt(hex(digest)) % N;
  // s_h mod n is 0 with probability ~2^-256: P_stealth would be P_spend, which the recipient's
  // spending key already controls, so it stays safe; no special case.
  return { scalar, viewTag: digest[0] as number };
}

/** The EVM address of a public key: the last 20 bytes of keccak256 of its uncompressed coordinates. */
function addressOf(point: InstanceType<typeof secp256k1.ProjectivePoint>): Hex {
  const uncompressed = point.toRawBytes(false).subarray(1);
  return hex(keccak_256(uncompressed).subarray(12));
}

/**
 * The sender's side: the stealth address of `meta` for the ephemeral private key `ephemeralKey`
 * (32 bytes, a valid scalar; the caller draws it fresh for every session).
 */
export function deriveStealthAddress(meta: MetaAddress, ephemeralKey: Uint8Array): StealthDerivation {
  const shared = secp256k1.getSharedSecret(ephemeralKey, bytes(meta.viewPubkey), true);
  const { scalar, viewTag } = hashedSecret(shared);
  const spend = secp256k1.ProjectivePoint.fromHex(bytes(meta.spendPubkey));
  const stealth = scalar === 0n ? spend : spend.add(secp256k1.ProjectivePoint.BASE.multiply(scalar));
  return {
    stealthAddress: addressOf(stealth),
    ephemeralPubkey: hex(secp256k1.getPublicKey(ephemeralKey, true)),
    viewTag,
  };
}

/** A fresh ephemeral private key (the library's CSPRNG-backed generator). */
export const newEphemeralKey = (): Uint8Array => secp256k1.utils.randomPrivateKey();

/**
 * The recipient's check of one announcement with the view private key and the spend public key:
 * the view tag first (one byte, so 255 of 256 foreign announcements cost no point addition), then
 * the address. Malformed announcement data is simply not ours.
 */
export function isOurs(
  announcement: { ephemeralPubkey: string; viewTag: number; stealthAddress: string },
  keys: { viewPrivateKey: Hex; spendPubkey: Hex },
): boolean {
  const ephemeral = compressedPoint(announcement.ephemeralPubkey);
  if (ephemeral === null) return false;
  const shared = secp256k1.getSharedSecret(bytes(keys.viewPrivateKey), bytes(ephemeral), true);
  const { scalar, viewTag } = hashedSecret(shared);
  if (viewTag !== announcement.viewTag) return false;
  const spend = secp256k1.ProjectivePoint.fromHex(bytes(keys.spendPubkey));
  const stealth = scalar === 0n ? spend : spend.add(secp256k1.ProjectivePoint.BASE.multiply(scalar));
  return addressOf(stealth) === announcement.stealthAddress.toLowerCase();
}

/** The stealth address's private key: p_spend + s_h mod n, from the view and spend private keys. */
export function stealthPrivateKey(
  ephemeralPubkey: string,
  keys: { viewPrivateKey: Hex; spendPrivateKey: Hex },
): Hex {
  const ephemeral = compressedPoint(ephemeralPubkey);
  if (ephemeral === null) throw new RangeError("ephemeral_pubkey is not a compressed secp256k1 point");
  const shared = secp256k1.getSharedSecret(bytes(keys.viewPrivateKey), bytes(ephemeral), true);
  const { scalar } = hashedSecret(shared);
  const key = (BigInt(keys.spendPrivateKey) + scalar) % N;
  return `0x${key.toString(16).padStart(64, "0")}`;
}
