import type { DestinationPin } from "../domain/merchant/types.ts";
import { sameId } from "../domain/types.ts";
import type { MerchantSettingsAdmin } from "./admin/merchant-admin.ts";
import { gatewayError } from "./errors.ts";
import type { CreateSessionBody } from "./schemas.ts";

/** What a pk-tagged P2P session carries from its merchant. */
export interface WidgetPolicy {
  /** The merchant's pins as they are now: the session's webhooks say whether it pays one of them. */
  pinnedDestinations: DestinationPin[];
}

/**
 * A P2P session made with a merchant's `pk_` is the merchant's (its webhooks are signed for it), yet
 * its creator names the destination, and a `pk_` is public. With the merchant's
 * `p2p_pinned_destinations_only` setting, the destination must be the one pinned for the chain the
 * burner's authorization is for; anything else is refused (403 destination_not_pinned) before any
 * command is sent. The destination is never filled in from the pin: the interface makes it
 * required, and a payer's wallet should show the address it signs for.
 */
export async function widgetPolicy(
  settings: Pick<MerchantSettingsAdmin, "destinations" | "settings">,
  merchantId: string,
  body: Pick<CreateSessionBody, "eip7702_auth" | "destination_address" | "destination_chain">,
): Promise<WidgetPolicy> {
  const [pins, { p2pPinnedDestinationsOnly }] = await Promise.all([
    settings.destinations(merchantId),
    settings.settings(merchantId),
  ]);
  if (p2pPinnedDestinationsOnly) {
    const source = body.eip7702_auth.chainId;
    // chainId 0 authorizes the burner on every chain: the money could arrive on any of them.
    if (source === 0)
      throw gatewayError(
        "destination_not_pinned",
        "this merchant accepts P2P sessions only to its pinned destinations: authorize the burner for one chain (eip7702_auth.chainId 0 is for every chain)",
      );
    const pin = pins.find((p) => p.sourceChainId === source);
    if (!pin)
      throw gatewayError(
        "destination_not_pinned",
        `this merchant accepts P2P sessions only to its pinned destinations, and pinned none for chain ${source}`,
      );
    if (pin.destChainId !== body.destination_chain || !sameId(pin.destAddress, body.destination_address))
      throw gatewayError(
        "destination_not_pinned",
        `this merchant accepts P2P sessions from chain ${source} only to the destination it pinned for that chain`,
      );
  }
  return { pinnedDestinations: pins };
}
