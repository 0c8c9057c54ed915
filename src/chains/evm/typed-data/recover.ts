import { createRequire } from "node:module";
import type { Address, Hex } from "viem";
import { hexToBytes, isHex, keccak256, numberToBytes, recoverAddress } from "viem/utils";

/**
 * Who signed a 32-byte hash: secp256k1 public-key recovery, then the address of that key. Two
 * implementations that answer alike (test/unit/signature-recovery.unit.test.ts holds them to it):
 * libsecp256k1 through the `secp256k1` package's prebuilt binding (~60 µs a recovery), and viem's
 * JavaScript one (~2 ms), used when the binding cannot load on this platform. Hashing stays with viem
 * (hashAuthorization, hashTypedData) in both; only the curve arithmetic differs.
 */

/** A 65-byte r || s || v hex signature, or its parts; yParity 0/1 or v 27/28, as viem accepts them. */
export type RecoverableSignature = Hex | { r: Hex; s: Hex; yParity: number };

/**
 * The signer of a 32-byte hash in lowercase (callers compare addresses, so the EIP-55 checksum would
 * be one more keccak for nothing), or null when the signature recovers to no key. Never throws.
 */
export type RecoverSigner = (hash: Hex, signature: RecoverableSignature) => Promise<Address | null>;

/** viem's recovery (noble-curves in JavaScript): the reference the native path must agree with. */
export const viemRecover: RecoverSigner = async (hash, signature) => {
  try {
    return (await recoverAddress({ hash, signature })).toLowerCase() as Address;
  } catch {
    return null;
  }
};

/** The part of the `secp256k1` package this module uses (its own types are not worth a dependency). */
interface Secp256k1Binding {
  ecdsaRecover(signature: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array;
}

// The curve order: noble (viem) refuses an r or s outside [1, n), libsecp256k1 refuses r or s >= n
// when it parses and 0 when it recovers; the check here keeps bigints that do not fit 32 bytes out.
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const COMPACT_65 = /^0x[0-9a-fA-F]{130}$/;

/** viem's toRecoveryBit: yParity 0/1 or legacy v 27/28; anything else has no recovery id. */
const recoveryBit = (yParityOrV: number): 0 | 1 | null =>
  yParityOrV === 0 || yParityOrV === 27 ? 0 : yParityOrV === 1 || yParityOrV === 28 ? 1 : null;

/** r || s (64 bytes) and the recovery id, or null where viem would refuse the signature. */
function compact(signature: RecoverableSignature): { rs: Uint8Array; recid: 0 | 1 } | null {
  if (typeof signature === "string") {
    if (!COMPACT_65.test(signature)) return null;
    const recid = recoveryBit(Number.parseInt(signature.slice(130), 16));
    return recid === null ? null : { rs: hexToBytes(signature.slice(0, 130) as Hex), recid };
  }
  const recid = recoveryBit(signature.yParity);
  // viem reads the object form's r and s as numbers, so a short or zero-padded hex is the same value.
  if (recid === null || !isHex(signature.r, { strict: true }) || !isHex(signature.s, { strict: true }))
    return null;
  if (signature.r === "0x" || signature.s === "0x") return null;
  const r = BigInt(signature.r);
  const s = BigInt(signature.s);
  if (r <= 0n || r >= N || s <= 0n || s >= N) return null;
  const rs = new Uint8Array(64);
  rs.set(numberToBytes(r, { size: 32 }), 0);
  rs.set(numberToBytes(s, { size: 32 }), 32);
  return { rs, recid };
}

function nativeRecoverWith(binding: Secp256k1Binding): RecoverSigner {
  return async (hash, signature) => {
    const parts = compact(signature);
    if (parts === null || !isHex(hash, { strict: true }) || hash.length !== 66) return null;
    let publicKey: Uint8Array;
    try {
      publicKey = binding.ecdsaRecover(parts.rs, parts.recid, hexToBytes(hash), false);
    } catch {
      // "Signature could not be parsed" (r or s >= n) or "Public key could not be recover" (no point).
      return null;
    }
    // An address is the last 20 bytes of the keccak of the uncompressed key without its 0x04 prefix.
    return `0x${keccak256(publicKey.subarray(1)).slice(26)}`;
  };
}

/** The native binding, or why it did not load (node-gyp-build finds no prebuild and none was compiled). */
function loadNative(): { recover: RecoverSigner } | { error: Error } {
  try {
    // `secp256k1/bindings`, not `secp256k1`: the package's main falls back to elliptic (JavaScript)
    // without a word when the binding does not load, and a silent fallback is what this must not do.
    const binding = createRequire(import.meta.url)("secp256k1/bindings") as Secp256k1Binding;
    return { recover: nativeRecoverWith(binding) };
  } catch (error) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }
}

const native = loadNative();

/** libsecp256k1's recovery, or null on a platform where the binding did not load. */
export const nativeRecover: RecoverSigner | null = "recover" in native ? native.recover : null;

/** What the service recovers with: native when it loaded, else viem; the gateway logs which, once. */
export const recoverSigner: {
  recover: RecoverSigner;
  implementation: "libsecp256k1" | "viem";
  loadError: Error | null;
} =
  "recover" in native
    ? { recover: native.recover, implementation: "libsecp256k1", loadError: null }
    : { recover: viemRecover, implementation: "viem", loadError: native.error };
