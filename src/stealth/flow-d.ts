import type { StealthMeta } from "../domain/merchant/types.ts";
import type { PinnedDestination, StealthDestination } from "../domain/types.ts";
import { deriveSolanaStealthAddress, newEphemeralScalar, SOLANA_STEALTH_SCHEME } from "./ed25519.ts";
import { deriveStealthAddress, ERC5564_SCHEME, newEphemeralKey } from "./erc5564.ts";

/**
 * The Solana scheme's sender side: a fresh destination for the merchant's Solana keys. Absent: no
 * Solana chain is configured, and Flow D derives EVM only.
 */
export type SolanaStealthDerive = (keys: { spendPubkey: string; viewPubkey: string }) => StealthDestination;

/** The Solana scheme (src/stealth/ed25519.ts) with a fresh ephemeral scalar for every session. */
export const deriveSolanaStealthDestination: SolanaStealthDerive = (keys) => ({
  scheme: SOLANA_STEALTH_SCHEME,
  ...deriveSolanaStealthAddress(keys, newEphemeralScalar()),
});

/**
 * A Flow D session's destinations: one per scheme the merchant registered keys for, each from a
 * fresh ephemeral key, so no two sessions share a stealth address.
 */
export function deriveStealthDestinations(
  meta: StealthMeta,
  solana?: SolanaStealthDerive,
): StealthDestination[] {
  const evm = deriveStealthAddress(meta, newEphemeralKey());
  const out: StealthDestination[] = [{ scheme: ERC5564_SCHEME, ...evm }];
  if (solana && meta.solSpendPubkey !== null && meta.solViewPubkey !== null)
    out.push(solana({ spendPubkey: meta.solSpendPubkey, viewPubkey: meta.solViewPubkey }));
  return out;
}

/**
 * What a Flow D session's pins are: for each chain the deposit may arrive on, the merchant's pinned
 * destination chain (the source chain itself when it pinned none), paid at the stealth address of
 * the scheme that receives on that chain (`schemeOf`, the chains' fact). A destination chain whose
 * scheme has no derived address is left out, so a deposit there is refused at commit as for a
 * checkout with no pin (no_destination).
 */
export function stealthPins(
  merchantPins: readonly PinnedDestination[],
  sourceChainIds: readonly number[],
  schemeOf: (chainId: number) => string | undefined,
  destinations: readonly StealthDestination[],
): PinnedDestination[] {
  const pins: PinnedDestination[] = [];
  for (const sourceChainId of sourceChainIds) {
    const destChainId =
      merchantPins.find((p) => p.sourceChainId === sourceChainId)?.destChainId ?? sourceChainId;
    const scheme = schemeOf(destChainId);
    const destination = destinations.find((d) => d.scheme === scheme);
    if (destination) pins.push({ sourceChainId, destAddress: destination.stealthAddress, destChainId });
  }
  return pins;
}
