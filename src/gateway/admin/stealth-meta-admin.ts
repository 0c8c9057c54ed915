import type { StealthMeta } from "../../domain/merchant/types.ts";
import type { MerchantStore } from "../../store/merchants.ts";
import type { merchantCommands } from "./merchant-commands.ts";

/** The merchant's stealth meta-address (PUT/GET /v1/stealth-meta, docs/STEALTH.md), on its actor. */
export interface StealthMetaAdmin {
  /** Sets (replaces) it; answers once the projection shows it, so the next Flow D session derives from it. */
  setStealthMeta(merchantId: string, meta: StealthMeta): Promise<StealthMeta>;
  /** The merchant's stealth meta-address, or null when it registered none. */
  stealthMeta(merchantId: string): Promise<StealthMeta | null>;
}

export function createStealthMetaAdmin(
  deps: ReturnType<typeof merchantCommands> & { store: Pick<MerchantStore, "stealthMetaOf"> },
): StealthMetaAdmin {
  const read = async (merchantId: string) => {
    const row = await deps.store.stealthMetaOf(merchantId);
    if (!row) return null;
    const { updatedAt: _, ...meta } = row;
    return meta;
  };
  return {
    async setStealthMeta(merchantId, meta) {
      const sentAt = deps.now();
      await deps.send(merchantId, "SetStealthMeta", meta);
      await deps.waitFor("the stealth meta-address", async () => {
        const row = await deps.store.stealthMetaOf(merchantId);
        const same =
          row?.spendPubkey === meta.spendPubkey &&
          row.viewPubkey === meta.viewPubkey &&
          row.solSpendPubkey === meta.solSpendPubkey &&
          row.solViewPubkey === meta.solViewPubkey;
        // Or a later PUT's: of two concurrent ones, the one the actor applied last stays.
        return !!row && (same || row.updatedAt > sentAt);
      });
      return meta;
    },
    stealthMeta: read,
  };
}
