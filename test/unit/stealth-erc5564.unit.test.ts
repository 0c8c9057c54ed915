import { secp256k1 } from "@noble/curves/secp256k1";
import { bytesToHex } from "@noble/hashes/utils";
import fc from "fast-check";
import { privateKeyToAddress } from "viem/accounts";
import { describe, expect, it } from "vitest";
import {
  compressedPoint,
  deriveStealthAddress,
  formatMetaAddress,
  type Hex,
  isOurs,
  newEphemeralKey,
  parseMetaAddress,
  stealthPrivateKey,
} from "../../src/stealth/erc5564.ts";
import { deriveStealthDestinations, stealthPins } from "../../src/stealth/flow-d.ts";
import { MAINNET_CHAIN_IDS, stealthRefusal } from "../../src/stealth/gating.ts";

const hex = (b: Uint8Array): Hex => `0x${bytesToHex(b)}`;
const keypair = () => {
  const priv = secp256k1.utils.randomPrivateKey();
  return { priv: hex(priv), pub: hex(secp256k1.getPublicKey(priv, true)) };
};
const recipient = () => {
  const spend = keypair();
  const view = keypair();
  return { spend, view, meta: { spendPubkey: spend.pub, viewPubkey: view.pub } };
};
const scalar = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .filter((b) => secp256k1.utils.isValidPrivateKey(b));

describe("ERC-5564 scheme 1", () => {
  it("the recipient's stealth private key controls the address the sender derived", () => {
    fc.assert(
      fc.property(scalar, (ephemeral) => {
        const r = recipient();
        const d = deriveStealthAddress(r.meta, ephemeral);
        const key = stealthPrivateKey(d.ephemeralPubkey, {
          viewPrivateKey: r.view.priv,
          spendPrivateKey: r.spend.priv,
        });
        expect(privateKeyToAddress(key).toLowerCase()).toBe(d.stealthAddress);
        expect(isOurs(d, { viewPrivateKey: r.view.priv, spendPubkey: r.spend.pub })).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  it("derives a different address for every ephemeral key, and the view tag is the hash's first byte", () => {
    const r = recipient();
    const a = deriveStealthAddress(r.meta, newEphemeralKey());
    const b = deriveStealthAddress(r.meta, newEphemeralKey());
    expect(a.stealthAddress).not.toBe(b.stealthAddress);
    expect(a.ephemeralPubkey).not.toBe(b.ephemeralPubkey);
    for (const d of [a, b])
      expect(Number.isInteger(d.viewTag) && d.viewTag >= 0 && d.viewTag < 256).toBe(true);
  });

  it("another recipient's view key does not claim the announcement", () => {
    const r = recipient();
    const other = recipient();
    const d = deriveStealthAddress(r.meta, newEphemeralKey());
    expect(isOurs(d, { viewPrivateKey: other.view.priv, spendPubkey: r.spend.pub })).toBe(false);
    expect(isOurs(d, { viewPrivateKey: r.view.priv, spendPubkey: other.spend.pub })).toBe(false);
    // The right view tag with another address is not ours either.
    expect(
      isOurs(
        { ...d, stealthAddress: `0x${"11".repeat(20)}` },
        { viewPrivateKey: r.view.priv, spendPubkey: r.spend.pub },
      ),
    ).toBe(false);
    expect(
      isOurs({ ...d, ephemeralPubkey: "0x02" }, { viewPrivateKey: r.view.priv, spendPubkey: r.spend.pub }),
    ).toBe(false);
  });

  it("parses st:eth: meta-addresses of two curve points and refuses anything else", () => {
    const r = recipient();
    const meta = formatMetaAddress(r.meta);
    expect(parseMetaAddress(meta)).toEqual(r.meta);
    expect(parseMetaAddress(meta.toUpperCase().replace("ST:ETH:0X", "st:eth:0x"))).toEqual(r.meta);
    expect(parseMetaAddress(meta.replace("st:eth:", "st:sol:"))).toBeNull();
    expect(parseMetaAddress(meta.slice(0, -2))).toBeNull();
    // x = 5 has no point on secp256k1 (5^3 + 7 = 132 is not a square mod p).
    const offCurve = `0x02${"0".repeat(63)}5`;
    expect(compressedPoint(offCurve)).toBeNull();
    expect(parseMetaAddress(`st:eth:${offCurve}${r.view.pub.slice(2)}`)).toBeNull();
    expect(parseMetaAddress(`st:eth:${r.spend.pub}${offCurve.slice(2)}`)).toBeNull();
    // An uncompressed prefix, or x at or above the field prime, is no compressed point.
    expect(compressedPoint(`0x04${r.spend.pub.slice(4)}`)).toBeNull();
    expect(compressedPoint(`0x02${"f".repeat(64)}`)).toBeNull();
  });
});

describe("stealth gating", () => {
  it("is refused when turned off, and on a mainnet chain whatever the setting", () => {
    expect(stealthRefusal(false, [31337])?.code).toBe("stealth_disabled");
    expect(stealthRefusal(true, [31337, 31338])).toBeNull();
    expect(stealthRefusal(true, [31337, 1])?.code).toBe("stealth_mainnet");
    expect(stealthRefusal(true, [792703809])?.code).toBe("stealth_mainnet");
    expect(MAINNET_CHAIN_IDS.has(792703810)).toBe(false);
  });
});

describe("Flow D's destinations", () => {
  const r = recipient();
  const meta = { ...r.meta, solSpendPubkey: null, solViewPubkey: null };
  const schemes = new Map<number, string>([
    [31337, "erc5564-1"],
    [31338, "erc5564-1"],
    [792703810, "solana-ed25519-1"],
  ]);
  const schemeOf = (id: number) => schemes.get(id);

  it("derives one destination per registered scheme, fresh each session, found by the recipient's keys", () => {
    const [a, ...rest] = deriveStealthDestinations(meta);
    const [b] = deriveStealthDestinations(meta);
    expect(rest).toEqual([]);
    expect(a?.scheme).toBe("erc5564-1");
    expect(a?.stealthAddress).not.toBe(b?.stealthAddress);
    expect(isOurs(a as never, { viewPrivateKey: r.view.priv, spendPubkey: r.spend.pub })).toBe(true);
  });

  it("keeps the merchant's destination chain (the source chain without a pin) and pays the stealth address of its scheme", () => {
    const evm = { scheme: "erc5564-1", ephemeralPubkey: "0x02", viewTag: 1, stealthAddress: "0x57ea17" };
    const pins = [{ sourceChainId: 31337, destAddress: "0xdead", destChainId: 31338 }];
    expect(stealthPins(pins, [31337, 31338], schemeOf, [evm])).toEqual([
      { sourceChainId: 31337, destAddress: "0x57ea17", destChainId: 31338 },
      { sourceChainId: 31338, destAddress: "0x57ea17", destChainId: 31338 },
    ]);
    // A Solana destination with no Solana scheme derived: no pin, so a deposit there has no destination.
    expect(stealthPins([], [792703810], schemeOf, [evm])).toEqual([]);
  });
});
