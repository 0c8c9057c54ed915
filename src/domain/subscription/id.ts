import type { Hex } from "../types.ts";

/**
 * The subscription id: the digest's first 16 bytes as an RFC 9562 version 8 ("custom") UUID. Deterministic,
 * so registering the same mandate twice lands on the same entity, which answers the second with 409.
 * 122 bits of a keccak digest keep distinct mandates apart.
 */
export function subscriptionIdFromDigest(digest: Hex): string {
  const hex = digest.slice(2, 34).toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) throw new Error(`not a 32-byte digest: ${digest}`);
  const variant = ((Number.parseInt(hex.charAt(16), 16) & 0x3) | 0x8).toString(16);
  const v = `${hex.slice(0, 12)}8${hex.slice(13, 16)}${variant}${hex.slice(17)}`;
  return `${v.slice(0, 8)}-${v.slice(8, 12)}-${v.slice(12, 16)}-${v.slice(16, 20)}-${v.slice(20)}`;
}
