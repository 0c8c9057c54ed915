import type { DestinationPin } from "../domain/merchant/types.ts";
import type { MerchantSettingsAdmin } from "./admin/merchant-admin.ts";

/** What a pk-tagged P2P session carries from its merchant. */
export interface WidgetPolicy {
  /** The merchant's pins as they are now: the session's webhooks say whether it pays one of them. */
  pinnedDestinations: DestinationPin[];
  /**
   * The merchant's `p2p_pinned_destinations_only`: the session core then refuses a destination that
   * is not the pin of the authorization's chain (403 destination_not_pinned, src/domain/commit-rules.ts).
   */
  pinnedOnly: boolean;
}

/** The merchant's pins and pinned-only setting, read for a pk-tagged POST /sessions. */
export async function widgetPolicy(
  settings: Pick<MerchantSettingsAdmin, "destinations" | "settings">,
  merchantId: string,
): Promise<WidgetPolicy> {
  const [pins, { p2pPinnedDestinationsOnly }] = await Promise.all([
    settings.destinations(merchantId),
    settings.settings(merchantId),
  ]);
  return { pinnedDestinations: pins, pinnedOnly: p2pPinnedDestinationsOnly };
}
