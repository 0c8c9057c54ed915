import { mod } from "@noble/curves/abstract/modular";
import { bytesToNumberLE, numberToBytesLE } from "@noble/curves/abstract/utils";
import { ed25519 } from "@noble/curves/ed25519";
import { sha512 } from "@noble/hashes/sha2";
import { concatBytes, randomBytes, utf8ToBytes } from "@noble/hashes/utils";
import { PublicKey } from "@solana/web3.js";

/**
 * Our ed25519 stealth scheme for Solana, `solana-ed25519-1` (docs/STEALTH.md, "Solana scheme"). There
 * is no standard one; this is the ERC-5564 construction moved to ed25519. Pure: every secret arrives as
 * an argument, so the sender side (the gateway, a fresh ephemeral scalar per session) and the
 * recipient side (the client library's scanner and withdrawal signer) are this one file.
 *
 *   keys        S = s·B (spend), V = v·B (view); s, v the scalars of two ordinary ed25519 seeds
 *   sender      r random mod L, R = r·B (the ephemeral_pubkey)
 *   shared      K = r·V = v·R
 *   hash        d = SHA-512("solana-ed25519-1" || enc(K)), h = d mod L (d read little-endian)
 *   view tag    d[0]
 *   stealth     P = S + h·B (the stealth address: enc(P) in base58)
 *   spending    p = s + h mod L, so p·B = P
 *
 * A stealth address's secret is a scalar, not a seed, so no ordinary ed25519 signer can use it: it
 * signs with raw-scalar EdDSA (signWithScalar), whose signatures the ordinary ed25519 verification,
 * and so a Solana node, accepts.
 */

/** The scheme's name in announcements and GET /sessions/:id/stealth. */
export const SOLANA_STEALTH_SCHEME = "solana-ed25519-1";

const Point = ed25519.ExtendedPoint;
type EdPoint = InstanceType<typeof Point>;
/** The prime order of the subgroup B generates. */
const L = ed25519.CURVE.n;
const HASH_DOMAIN = utf8ToBytes(SOLANA_STEALTH_SCHEME);
/** Separates the signing nonce's hash from the shared-secret hash of the same scheme. */
const NONCE_DOMAIN = utf8ToBytes(`${SOLANA_STEALTH_SCHEME}/nonce`);

/** What the sender publishes and where the money goes; keys and address in base58. */
export interface SolanaStealthDerivation {
  stealthAddress: string;
  ephemeralPubkey: string;
  viewTag: number;
}

/** A recipient's public keys, base58 as registered with PUT /v1/stealth-meta. */
export interface SolanaStealthPublicKeys {
  spendPubkey: string;
  viewPubkey: string;
}

/**
 * A point given in base58, decoded strictly: exactly 32 bytes, the canonical encoding (y < p, and
 * re-encoding gives the same bytes), in the prime-order subgroup and not of small order. Points with
 * a torsion component are refused because r·V and v·R would then differ: the recipient could not
 * find the payment. Null when it is not such a point.
 */
function subgroupPoint(base58: string): EdPoint | null {
  let bytes: Uint8Array;
  try {
    const key = new PublicKey(base58);
    // Another spelling of the same bytes (leading zeros aside, base58 has none) is refused.
    if (key.toBase58() !== base58) return null;
    bytes = key.toBytes();
  } catch {
    return null;
  }
  try {
    // fromHex is strict by default (RFC 8032: y < p), not ZIP-215.
    const point = Point.fromHex(bytes);
    if (point.isSmallOrder() || !point.isTorsionFree()) return null;
    const reencoded = point.toRawBytes();
    if (!reencoded.every((b, i) => b === bytes[i])) return null;
    return point;
  } catch {
    return null;
  }
}

/**
 * A stealth public key (spend, view or ephemeral) as given, when it is a valid one for the scheme;
 * null otherwise. What PUT /v1/stealth-meta checks sol_spend_pubkey and sol_view_pubkey with.
 */
export function parseSolanaStealthKey(base58: string): string | null {
  return subgroupPoint(base58) === null ? null : base58;
}

const encode = (point: EdPoint): string => new PublicKey(point.toRawBytes()).toBase58();

/** d = SHA-512(domain || enc(K)): its first byte is the view tag, d mod L the tweak h. */
function hashShared(shared: EdPoint): { h: bigint; viewTag: number } {
  const digest = sha512(concatBytes(HASH_DOMAIN, shared.toRawBytes()));
  // h = 0 has probability ~2^-252: P would be S, still spendable by the recipient alone; no special case.
  return { h: mod(bytesToNumberLE(digest), L), viewTag: digest[0] as number };
}

/** S + h·B; multiply() refuses 0, and h = 0 leaves S. */
const tweak = (spend: EdPoint, h: bigint): EdPoint => (h === 0n ? spend : spend.add(Point.BASE.multiply(h)));

/** A fresh ephemeral scalar: 64 random bytes reduced mod L (uniform to ~2^-259), never 0. */
export function newEphemeralScalar(): bigint {
  for (;;) {
    const r = mod(bytesToNumberLE(randomBytes(64)), L);
    if (r !== 0n) return r;
  }
}

/**
 * The sender's side: the stealth address of `keys` for the ephemeral scalar `ephemeral` (in [1, L);
 * the caller draws it fresh for every session). Throws a RangeError for keys parseSolanaStealthKey
 * refuses, so a key that slipped past validation can never yield an address nobody can find.
 */
export function deriveSolanaStealthAddress(
  keys: SolanaStealthPublicKeys,
  ephemeral: bigint,
): SolanaStealthDerivation {
  if (ephemeral <= 0n || ephemeral >= L) throw new RangeError("ephemeral scalar out of [1, L)");
  const spend = subgroupPoint(keys.spendPubkey);
  const view = subgroupPoint(keys.viewPubkey);
  if (spend === null || view === null) throw new RangeError("not a Solana stealth public key");
  const { h, viewTag } = hashShared(view.multiply(ephemeral));
  return {
    stealthAddress: encode(tweak(spend, h)),
    ephemeralPubkey: encode(Point.BASE.multiply(ephemeral)),
    viewTag,
  };
}

/**
 * The scalar of an ordinary ed25519 seed (the first 32 bytes of a Solana secret key): the clamped
 * first half of SHA-512(seed), as every ed25519 signer computes it, reduced mod L. So a recipient's
 * spend and view keys can be ordinary Solana keypairs.
 */
export const scalarOfSeed = (seed: Uint8Array): bigint =>
  mod(ed25519.utils.getExtendedPublicKey(seed).scalar, L);

/** The base58 public key of a scalar (p·B). */
export const publicKeyOfScalar = (scalar: bigint): string => encode(Point.BASE.multiply(mod(scalar, L)));

/** The recipient's public keys from its two seeds. */
export const solanaStealthPublicKeys = (seeds: {
  spendSeed: Uint8Array;
  viewSeed: Uint8Array;
}): SolanaStealthPublicKeys => ({
  spendPubkey: publicKeyOfScalar(scalarOfSeed(seeds.spendSeed)),
  viewPubkey: publicKeyOfScalar(scalarOfSeed(seeds.viewSeed)),
});

/** h from the view scalar and the announced R; null when R is not a valid point (not ours). */
function recipientTweak(ephemeralPubkey: string, viewScalar: bigint): { h: bigint; viewTag: number } | null {
  const ephemeral = subgroupPoint(ephemeralPubkey);
  if (ephemeral === null) return null;
  return hashShared(ephemeral.multiply(mod(viewScalar, L)));
}

/**
 * The recipient's check of one announcement with the view seed and the spend public key: the view
 * tag first (255 of 256 foreign announcements stop there, before any point addition), then the
 * address. Malformed announcement data is simply not ours.
 */
export function isOurSolanaAnnouncement(
  announcement: SolanaStealthDerivation,
  keys: { viewSeed: Uint8Array; spendPubkey: string },
): boolean {
  const tweaked = recipientTweak(announcement.ephemeralPubkey, scalarOfSeed(keys.viewSeed));
  if (tweaked === null || tweaked.viewTag !== announcement.viewTag) return false;
  const spend = subgroupPoint(keys.spendPubkey);
  return spend !== null && encode(tweak(spend, tweaked.h)) === announcement.stealthAddress;
}

/**
 * The stealth address's spending scalar p = s + h mod L, from the recipient's two seeds and the
 * announced ephemeral key. Throws a RangeError when the ephemeral key is not a valid point.
 */
export function solanaStealthSpendingScalar(
  ephemeralPubkey: string,
  seeds: { viewSeed: Uint8Array; spendSeed: Uint8Array },
): bigint {
  const tweaked = recipientTweak(ephemeralPubkey, scalarOfSeed(seeds.viewSeed));
  if (tweaked === null) throw new RangeError("ephemeral_pubkey is not a Solana stealth public key");
  return mod(scalarOfSeed(seeds.spendSeed) + tweaked.h, L);
}

/**
 * Raw-scalar EdDSA (RFC 8032's signing equation with the secret scalar given directly): nonce
 * r = SHA-512(nonce domain || le32(a) || M) mod L, deterministic like RFC 8032's (the same message
 * signs the same way; no randomness to fail), R = r·B, k = SHA-512(enc(R) || enc(A) || M) mod L,
 * S = r + k·a mod L; the signature is enc(R) || le32(S). The ordinary ed25519 verification accepts it
 * (verifySolanaSignature, and the Solana runtime's signature check).
 */
export function signWithScalar(scalar: bigint, message: Uint8Array): Uint8Array {
  const a = mod(scalar, L);
  if (a === 0n) throw new RangeError("signing scalar is 0");
  const publicKey = Point.BASE.multiply(a).toRawBytes();
  const nonce = mod(bytesToNumberLE(sha512(concatBytes(NONCE_DOMAIN, numberToBytesLE(a, 32), message))), L);
  // The nonce is 0 with probability 2^-252; multiply() refuses 0, so take the next one.
  const r = nonce === 0n ? 1n : nonce;
  const R = Point.BASE.multiply(r).toRawBytes();
  const k = mod(bytesToNumberLE(sha512(concatBytes(R, publicKey, message))), L);
  return concatBytes(R, numberToBytesLE(mod(r + k * a, L), 32));
}

/** The ordinary ed25519 verification (RFC 8032, strict encodings) of a signature by a base58 key. */
export function verifySolanaSignature(
  signature: Uint8Array,
  message: Uint8Array,
  publicKey: string,
): boolean {
  let key: Uint8Array;
  try {
    key = new PublicKey(publicKey).toBytes();
  } catch {
    return false;
  }
  try {
    return ed25519.verify(signature, message, key, { zip215: false });
  } catch {
    return false;
  }
}
