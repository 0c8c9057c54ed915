import { ED25519_TORSION_SUBGROUP, ed25519 } from "@noble/curves/ed25519";
import { hexToBytes } from "@noble/hashes/utils";
import { Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  deriveSolanaStealthAddress,
  isOurSolanaAnnouncement,
  newEphemeralScalar,
  parseSolanaStealthKey,
  publicKeyOfScalar,
  SOLANA_STEALTH_SCHEME,
  scalarOfSeed,
  signWithScalar,
  solanaStealthPublicKeys,
  solanaStealthSpendingScalar,
  verifySolanaSignature,
} from "../../src/stealth/ed25519.ts";

// The Solana stealth scheme (docs/STEALTH.md, "Solana scheme"): what the sender derives, the
// recipient alone finds and spends, and what it signs with the spending scalar is an ordinary
// ed25519 signature of the stealth address. The property cases do hundreds of point multiplications
// in JavaScript: they get 60 s, as a loaded CI machine needs (about 1 s each alone).

const L = ed25519.CURVE.n;
const seed = fc.uint8Array({ minLength: 32, maxLength: 32 });
const recipient = fc.record({ spendSeed: seed, viewSeed: seed });
const ephemeral = fc.bigInt({ min: 1n, max: L - 1n });
const b58 = (bytes: Uint8Array): string => new PublicKey(bytes).toBase58();

describe("derivation and scanning", () => {
  it("the recipient's spending scalar is the secret of the address the sender derived", () => {
    fc.assert(
      fc.property(recipient, ephemeral, (seeds, r) => {
        const announced = deriveSolanaStealthAddress(solanaStealthPublicKeys(seeds), r);
        expect(isOurSolanaAnnouncement(announced, { viewSeed: seeds.viewSeed, ...pub(seeds) })).toBe(true);
        const p = solanaStealthSpendingScalar(announced.ephemeralPubkey, seeds);
        expect(publicKeyOfScalar(p)).toBe(announced.stealthAddress);
      }),
      { numRuns: 20 },
    );
  }, 60_000);

  it("another view key or another spend key does not claim the announcement", () => {
    fc.assert(
      fc.property(recipient, recipient, ephemeral, (seeds, other, r) => {
        fc.pre(!sameBytes(seeds.viewSeed, other.viewSeed) && !sameBytes(seeds.spendSeed, other.spendSeed));
        const announced = deriveSolanaStealthAddress(solanaStealthPublicKeys(seeds), r);
        expect(isOurSolanaAnnouncement(announced, { viewSeed: other.viewSeed, ...pub(seeds) })).toBe(false);
        expect(isOurSolanaAnnouncement(announced, { viewSeed: seeds.viewSeed, ...pub(other) })).toBe(false);
      }),
      { numRuns: 15 },
    );
  }, 60_000);

  it("an announcement whose view tag or address was changed is not ours", () => {
    const seeds = { spendSeed: new Uint8Array(32).fill(1), viewSeed: new Uint8Array(32).fill(2) };
    const announced = deriveSolanaStealthAddress(solanaStealthPublicKeys(seeds), newEphemeralScalar());
    const keys = { viewSeed: seeds.viewSeed, ...pub(seeds) };
    expect(isOurSolanaAnnouncement({ ...announced, viewTag: (announced.viewTag + 1) % 256 }, keys)).toBe(
      false,
    );
    const elsewhere = Keypair.generate().publicKey.toBase58();
    expect(isOurSolanaAnnouncement({ ...announced, stealthAddress: elsewhere }, keys)).toBe(false);
    expect(isOurSolanaAnnouncement({ ...announced, ephemeralPubkey: "not-base58!" }, keys)).toBe(false);
  });

  it("two sessions' ephemeral scalars give two unrelated addresses", () => {
    const keys = solanaStealthPublicKeys({
      spendSeed: new Uint8Array(32),
      viewSeed: new Uint8Array(32).fill(9),
    });
    const a = deriveSolanaStealthAddress(keys, newEphemeralScalar());
    const b = deriveSolanaStealthAddress(keys, newEphemeralScalar());
    expect(a.stealthAddress).not.toBe(b.stealthAddress);
    expect(a.ephemeralPubkey).not.toBe(b.ephemeralPubkey);
  });

  it("matches the worked example written in docs/STEALTH.md", () => {
    // Fixed seeds and ephemeral scalar: pins every byte of the scheme (domain, hash, encodings).
    const seeds = { spendSeed: new Uint8Array(32).fill(1), viewSeed: new Uint8Array(32).fill(2) };
    const keys = solanaStealthPublicKeys(seeds);
    expect(keys).toEqual({ spendPubkey: VECTOR.spendPubkey, viewPubkey: VECTOR.viewPubkey });
    expect(deriveSolanaStealthAddress(keys, 7n)).toEqual({
      stealthAddress: VECTOR.stealthAddress,
      ephemeralPubkey: VECTOR.ephemeralPubkey,
      viewTag: VECTOR.viewTag,
    });
    expect(SOLANA_STEALTH_SCHEME).toBe("solana-ed25519-1");
  });

  it("an ordinary Solana keypair's seed gives its own public key as the scheme's key", () => {
    const kp = Keypair.generate();
    expect(publicKeyOfScalar(scalarOfSeed(kp.secretKey.subarray(0, 32)))).toBe(kp.publicKey.toBase58());
  });

  it("refuses an ephemeral scalar outside [1, L) and keys that are not valid points", () => {
    const keys = solanaStealthPublicKeys({ spendSeed: new Uint8Array(32), viewSeed: new Uint8Array(32) });
    expect(() => deriveSolanaStealthAddress(keys, 0n)).toThrow(RangeError);
    expect(() => deriveSolanaStealthAddress(keys, L)).toThrow(RangeError);
    const smallOrder = b58(hexToBytes(ED25519_TORSION_SUBGROUP[1] as string));
    expect(() => deriveSolanaStealthAddress({ ...keys, viewPubkey: smallOrder }, 5n)).toThrow(RangeError);
  });
});

describe("key validation", () => {
  const valid = Keypair.generate().publicKey.toBase58();

  it("accepts an ordinary ed25519 public key", () => {
    expect(parseSolanaStealthKey(valid)).toBe(valid);
  });

  it("refuses every small-order point (the identity and the torsion points)", () => {
    for (const hex of ED25519_TORSION_SUBGROUP)
      expect(parseSolanaStealthKey(b58(hexToBytes(hex)))).toBeNull();
  });

  it("refuses a point with a torsion component (outside the prime-order subgroup)", () => {
    const torsion = ed25519.ExtendedPoint.fromHex(ED25519_TORSION_SUBGROUP[1] as string);
    const mixed = ed25519.ExtendedPoint.fromHex(new PublicKey(valid).toBytes()).add(torsion);
    expect(mixed.isTorsionFree()).toBe(false);
    expect(parseSolanaStealthKey(b58(mixed.toRawBytes()))).toBeNull();
  });

  it("refuses bytes that are not a curve point and a non-canonical encoding (y >= p)", () => {
    let offCurve = new Uint8Array(32);
    for (let i = 2; ; i++) {
      offCurve = new Uint8Array(32).fill(i);
      if (!isPoint(offCurve)) break;
    }
    expect(parseSolanaStealthKey(b58(offCurve))).toBeNull();
    // y = p + 1 encodes the same point as y = 1 (of small order anyway), and y = 2^255 - 1 > p.
    const nonCanonical = new Uint8Array(32).fill(0xff);
    nonCanonical[31] = 0x7f;
    expect(parseSolanaStealthKey(b58(nonCanonical))).toBeNull();
  });

  it("refuses what is not a base58 32-byte key", () => {
    // 31 zero bytes, 33 bytes, a character outside base58's alphabet.
    for (const bad of ["", "1".repeat(31), `${valid}1`, "0OIl", ` ${valid}`])
      expect(parseSolanaStealthKey(bad)).toBeNull();
  });
});

describe("raw-scalar signing", () => {
  it("the ordinary ed25519 verification accepts what the spending scalar signs", () => {
    fc.assert(
      fc.property(recipient, ephemeral, fc.uint8Array({ maxLength: 300 }), (seeds, r, message) => {
        const announced = deriveSolanaStealthAddress(solanaStealthPublicKeys(seeds), r);
        const p = solanaStealthSpendingScalar(announced.ephemeralPubkey, seeds);
        const signature = signWithScalar(p, message);
        expect(verifySolanaSignature(signature, message, announced.stealthAddress)).toBe(true);
        expect(ed25519.verify(signature, message, new PublicKey(announced.stealthAddress).toBytes())).toBe(
          true,
        );
      }),
      { numRuns: 15 },
    );
  }, 60_000);

  it("a Solana transaction signed by the stealth address passes web3.js's signature check", () => {
    const p = 123456789n;
    const stealth = new PublicKey(publicKeyOfScalar(p));
    const tx = new Transaction({
      feePayer: stealth,
      blockhash: "4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn",
      lastValidBlockHeight: 1,
    }).add(
      SystemProgram.transfer({ fromPubkey: stealth, toPubkey: Keypair.generate().publicKey, lamports: 1 }),
    );
    tx.addSignature(stealth, Buffer.from(signWithScalar(p, tx.serializeMessage())));
    expect(tx.verifySignatures()).toBe(true);
  });

  it("is deterministic, and a changed message, signature or key fails verification", () => {
    const p = scalarOfSeed(new Uint8Array(32).fill(5));
    const key = publicKeyOfScalar(p);
    const message = new TextEncoder().encode("withdraw");
    const signature = signWithScalar(p, message);
    expect(signWithScalar(p, message)).toEqual(signature);
    expect(verifySolanaSignature(signature, new TextEncoder().encode("withdraw!"), key)).toBe(false);
    const flipped = signature.slice();
    flipped[40] = (flipped[40] as number) ^ 1;
    expect(verifySolanaSignature(flipped, message, key)).toBe(false);
    expect(verifySolanaSignature(signature, message, publicKeyOfScalar(p + 1n))).toBe(false);
    expect(verifySolanaSignature(signature.subarray(0, 63), message, key)).toBe(false);
    expect(verifySolanaSignature(signature, message, "not a key")).toBe(false);
  });

  it("refuses the zero scalar", () => {
    expect(() => signWithScalar(L, new Uint8Array(1))).toThrow(RangeError);
  });
});

const VECTOR = {
  spendPubkey: "AKnL4NNf3DGWZJS6cPknBuEGnVsV4A4m5tgebLHaRSZ9",
  viewPubkey: "9hSR6S7WPtxmTojgo6GG3k4yDPecgJY292j7xrsUGWBu",
  stealthAddress: "223ynx3zZzxagUn8BohFzHgxBW9be7dZLvC5fLC3wuaW",
  ephemeralPubkey: "DQkurkeUr1yjS59aHLwwk68JBymnGN6yNjUuTvyw5m28",
  viewTag: 156,
};

function pub(seeds: { spendSeed: Uint8Array; viewSeed: Uint8Array }): { spendPubkey: string } {
  return { spendPubkey: solanaStealthPublicKeys(seeds).spendPubkey };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function isPoint(bytes: Uint8Array): boolean {
  try {
    ed25519.ExtendedPoint.fromHex(bytes);
    return true;
  } catch {
    return false;
  }
}
