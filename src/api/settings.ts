import { z } from "zod";

// The merchant's settings (GET and PUT /v1/settings).

const P2P_PINNED_ONLY =
  "true: a P2P session created with your pk_ (POST /sessions) must pay the destination you pinned for its burner's chain, or it is refused (403 destination_not_pinned)";

export const settingsSchema = z.object({
  object: z.literal("settings"),
  p2p_pinned_destinations_only: z.boolean().describe(P2P_PINNED_ONLY),
});
/** The body of PUT /v1/settings: the whole settings object, every setting named. */
export const settingsBodySchema = z.strictObject({
  p2p_pinned_destinations_only: z.boolean().describe(P2P_PINNED_ONLY),
});
