import { arch, platform } from "node:os";
import { type Address, type Hex, serializeSignature } from "viem";
import { privateKeyToAccount, sign } from "viem/accounts";
import {
  hashAuthorization,
  hashTypedData,
  keccak256,
  numberToHex,
  recoverAuthorizationAddress,
  recoverTypedDataAddress,
  toHex,
} from "viem/utils";
import { describe, expect, it } from "vitest";
import { evmSignatureChecks } from "../../src/chains/evm/typed-data/authorization.ts";
import { standingRefundTypedData } from "../../src/chains/evm/typed-data/eip712.ts";
import {
  nativeRecover,
  type RecoverableSignature,
  type RecoverSigner,
  recoverSigner,
  viemRecover,
} from "../../src/chains/evm/typed-data/recover.ts";
import { newBurner } from "../../src/client/burner.ts";
import type { Authorization } from "../../src/domain/types.ts";

/**
 * The native recovery (libsecp256k1) must answer exactly as viem's does: the same address, or both
 * refuse. Vectors are deterministic (keys and hashes are keccak of a counter) so a failure reproduces.
 */

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
const DELEGATE: Address = "0x1111111111111111111111111111111111111111";
const word = (n: bigint): Hex => numberToHex(n, { size: 32 });
const lower = (address: Address) => address.toLowerCase() as Address;
const keyOf = (i: number): Hex => keccak256(toHex(`key ${i}`));
const hashOf = (i: number): Hex => keccak256(toHex(`message ${i}`));

// The platforms the `secp256k1` package ships prebuilds for; anywhere else the fallback is expected.
const PREBUILT = ["linux-x64", "darwin-arm64", "win32-x64"].includes(`${platform()}-${arch()}`);
const native = nativeRecover as RecoverSigner;

async function expectAgreement(hash: Hex, signature: RecoverableSignature): Promise<Address | null> {
  const [fromNative, fromViem] = await Promise.all([native(hash, signature), viemRecover(hash, signature)]);
  expect(fromNative, `hash ${hash}, signature ${JSON.stringify(signature)}`).toBe(fromViem);
  return fromNative;
}

function modPow(base: bigint, exp: bigint, mod: bigint): bigint {
  let result = 1n;
  for (let b = base % mod, e = exp; e > 0n; e >>= 1n, b = (b * b) % mod)
    if (e & 1n) result = (result * b) % mod;
  return result;
}

/** The smallest x > from with no curve point (x^3 + 7 is not a square mod p): an r no key can have. */
function xOffTheCurve(from: bigint): bigint {
  let x = from + 1n;
  while (modPow(x ** 3n + 7n, (P - 1n) / 2n, P) !== P - 1n) x += 1n;
  return x;
}

// viem's recovery takes ~2 ms of CPU, several times that on a busy machine, and the first test alone
// makes 1,200 of them: the default 5 s per test is too short while other suites share the cores.
describe.runIf(PREBUILT)("native secp256k1 recovery", { timeout: 60_000 }, () => {
  it("loads libsecp256k1 from the package's prebuild, so the service does not fall back", () => {
    expect(nativeRecover).not.toBeNull();
    expect(recoverSigner).toMatchObject({ implementation: "libsecp256k1", loadError: null });
  });

  it("agrees with viem on 300 keys and messages, as parts and as 65 bytes with v 27/28 or 0/1", async () => {
    for (let i = 0; i < 300; i++) {
      const privateKey = keyOf(i);
      const hash = hashOf(i);
      const sig = await sign({ hash, privateKey });
      const yParity = sig.yParity ?? 0;
      const signer = lower(privateKeyToAccount(privateKey).address);
      expect(await expectAgreement(hash, { r: sig.r, s: sig.s, yParity })).toBe(signer);
      expect(await expectAgreement(hash, serializeSignature(sig))).toBe(signer);
      expect(await expectAgreement(hash, `${serializeSignature(sig).slice(0, 130)}0${yParity}` as Hex)).toBe(
        signer,
      );
      // The other parity recovers another key (or none), the same one on both sides.
      expect(await expectAgreement(hash, { r: sig.r, s: sig.s, yParity: 1 - yParity })).not.toBe(signer);
    }
  });

  it("agrees on high-s signatures: the twin recovers the signer, s alone flipped another key", async () => {
    for (let i = 0; i < 100; i++) {
      const hash = hashOf(1000 + i);
      const sig = await sign({ hash, privateKey: keyOf(1000 + i) });
      const yParity = sig.yParity ?? 0;
      const highS = word(N - BigInt(sig.s));
      const signer = lower(privateKeyToAccount(keyOf(1000 + i)).address);
      expect(await expectAgreement(hash, { r: sig.r, s: highS, yParity: 1 - yParity })).toBe(signer);
      expect(await expectAgreement(hash, { r: sig.r, s: highS, yParity })).not.toBe(signer);
    }
  });

  it("agrees with recoverAuthorizationAddress and recoverTypedDataAddress over viem's own hashes", async () => {
    for (let i = 0; i < 50; i++) {
      const account = privateKeyToAccount(keyOf(2000 + i));
      const request = { address: DELEGATE, chainId: 31337 + (i % 3), nonce: i };
      const auth = await account.signAuthorization(request);
      const byViem = await recoverAuthorizationAddress({ authorization: request, signature: auth });
      const signature = { r: auth.r, s: auth.s, yParity: auth.yParity ?? 0 };
      expect(await native(hashAuthorization(request), signature)).toBe(lower(byViem));

      const typed = standingRefundTypedData(31337 + i, account.address, {
        to: DELEGATE,
        deadline: BigInt(1_800_000_000 + i),
      });
      const sig = await account.signTypedData(typed);
      expect(await native(hashTypedData(typed), sig)).toBe(
        lower(await recoverTypedDataAddress({ ...typed, signature: sig })),
      );
    }
  });

  describe("both refuse, or both recover the same key, on malformed signatures", () => {
    const hash = hashOf(3000);
    const good = sign({ hash, privateKey: keyOf(3000) });

    type Parts = { r: Hex; s: Hex; yParity: number };
    // What both must answer: the signer, no key, or one key that is not the signer's.
    it.each<[string, (sig: Parts) => Partial<Parts>, "signer" | "none" | "another"]>([
      ["r zero", () => ({ r: word(0n) }), "none"],
      ["s zero", () => ({ s: word(0n) }), "none"],
      ["r = n", () => ({ r: word(N) }), "none"],
      ["s = n", () => ({ s: word(N) }), "none"],
      ["r > n", () => ({ r: word(N + 5n) }), "none"],
      ["s at 2^256 - 1", () => ({ s: word(2n ** 256n - 1n) }), "none"],
      ["r short (one byte)", () => ({ r: "0x01" }), "another"],
      ["r 33 bytes with a leading zero (same value)", (sig) => ({ r: `0x00${sig.r.slice(2)}` }), "signer"],
      ["r 33 bytes over 2^256", (sig) => ({ r: `0x01${sig.r.slice(2)}` }), "none"],
      ["r not hex", () => ({ r: `0x${"zz".repeat(32)}` }), "none"],
      ["r empty", () => ({ r: "0x" }), "none"],
      ["yParity 2", () => ({ yParity: 2 }), "none"],
      ["legacy v 27/28 in place of yParity", (sig) => ({ yParity: 27 + sig.yParity }), "signer"],
    ])("%s", async (_name, change, expected) => {
      const sig = await good;
      const parts = { r: sig.r, s: sig.s, yParity: sig.yParity ?? 0 };
      const recovered = await expectAgreement(hash, { ...parts, ...change(parts) });
      const signer = lower(privateKeyToAccount(keyOf(3000)).address);
      if (expected === "signer") expect(recovered).toBe(signer);
      else if (expected === "none") expect(recovered).toBeNull();
      else expect([null, signer]).not.toContain(recovered);
    });

    it.each([
      ["64 bytes", (s: Hex) => s.slice(0, 130) as Hex],
      ["66 bytes", (s: Hex) => `${s}00` as Hex],
      ["v 29", (s: Hex) => `${s.slice(0, 130)}1d` as Hex],
      ["v 26", (s: Hex) => `${s.slice(0, 130)}1a` as Hex],
      ["not hex", (s: Hex) => `${s.slice(0, 128)}zz${s.slice(130)}` as Hex],
      ["r = n", (s: Hex) => `${word(N)}${s.slice(66)}` as Hex],
    ] as const)("65-byte form: %s", async (_name, mangle) => {
      expect(await expectAgreement(hash, mangle(serializeSignature(await good)))).toBeNull();
    });
  });

  it("both refuse an r with no point on the curve, for either parity", async () => {
    const r = word(xOffTheCurve(1n));
    const s = word(12345n);
    for (const yParity of [0, 1]) expect(await expectAgreement(hashOf(4000), { r, s, yParity })).toBeNull();
  });

  it("both refuse a signature whose recovered key is the point at infinity", async () => {
    // With R = kG (r its x, yParity its y's parity) and s = e / k, s·R = e·G, so the key
    // r⁻¹(s·R − e·G) is the point at infinity: a well-formed signature that belongs to no key.
    const k = BigInt(keyOf(5000));
    const publicKey = privateKeyToAccount(keyOf(5000)).publicKey;
    const x = BigInt(`0x${publicKey.slice(4, 68)}`);
    const yParity = Number(BigInt(`0x${publicKey.slice(68)}`) & 1n);
    const e = BigInt(hashOf(5000)) % N;
    const s = (e * modPow(k, N - 2n, N)) % N;
    expect(await expectAgreement(hashOf(5000), { r: word(x), s: word(s), yParity })).toBeNull();
  });

  it("gives the same check results through both recoveries", async () => {
    const burner = await newBurner({ chainId: 31337, delegate: DELEGATE });
    const auth = burner.eip7702Auth;
    const chains = [{ chainId: 31337, delegate: DELEGATE }];
    const variants: Authorization[] = [
      auth,
      { ...auth, nonce: 1 },
      { ...auth, yParity: 1 - auth.yParity },
      { ...auth, r: word(0n) },
      { ...auth, r: word(xOffTheCurve(1n)) },
      { ...auth, yParity: 27 },
    ];
    for (const variant of variants) {
      expect(await evmSignatureChecks(chains, native).authorization(variant, burner.address)).toEqual(
        await evmSignatureChecks(chains, viemRecover).authorization(variant, burner.address),
      );
    }
    const to = DELEGATE;
    const typed = standingRefundTypedData(31337, burner.address, { to, deadline: 1_800_000_100n });
    const refund = {
      to,
      deadline: 1_800_000_100,
      signatures: { "31337": await burner.account.signTypedData(typed) },
    };
    for (const burnerAddress of [burner.address, DELEGATE]) {
      expect(
        await evmSignatureChecks(chains, native).standingRefund(refund, burnerAddress, 1_800_000_000),
      ).toEqual(
        await evmSignatureChecks(chains, viemRecover).standingRefund(refund, burnerAddress, 1_800_000_000),
      );
    }
  });
});
