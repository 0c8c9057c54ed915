import { SOLANA_STEALTH_SCHEME, type SolanaStealthDerivation } from "./ed25519.ts";

/**
 * The Solana announcement's memo text (docs/STEALTH.md, "The announcement on Solana"): written by the
 * executor's Memo v2 transaction, read back by the recipient's scanner. One line of ASCII, fields in
 * this order, keys in base58 (which has no spaces or `=`), the view tag in decimal:
 *
 *   stealth-announce solana-ed25519-1 ephemeral_pubkey=<R> view_tag=<0..255> stealth_address=<P>
 */
export function solanaAnnouncementMemo(d: SolanaStealthDerivation): string {
  if (!Number.isInteger(d.viewTag) || d.viewTag < 0 || d.viewTag > 255)
    throw new RangeError(`view tag ${d.viewTag} is not one byte`);
  return `stealth-announce ${SOLANA_STEALTH_SCHEME} ephemeral_pubkey=${d.ephemeralPubkey} view_tag=${d.viewTag} stealth_address=${d.stealthAddress}`;
}

const BASE58 = "[1-9A-HJ-NP-Za-km-z]{32,44}";
const MEMO = new RegExp(
  `^stealth-announce ${SOLANA_STEALTH_SCHEME} ephemeral_pubkey=(${BASE58}) view_tag=(0|[1-9][0-9]{0,2}) stealth_address=(${BASE58})$`,
);

/**
 * The announcement a memo carries, or null when the text is not one (another memo, another scheme, a
 * view tag above 255). The keys are only shaped like base58 here: whether they are points, and ours,
 * is isOurSolanaAnnouncement's to say.
 */
export function parseSolanaAnnouncementMemo(text: string): SolanaStealthDerivation | null {
  const m = MEMO.exec(text);
  if (m?.[1] === undefined || m[2] === undefined || m[3] === undefined) return null;
  const viewTag = Number(m[2]);
  if (viewTag > 255) return null;
  return { ephemeralPubkey: m[1], viewTag, stealthAddress: m[3] };
}
