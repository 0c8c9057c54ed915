import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { settingsBodySchema, settingsSchema } from "../../api/settings.ts";
import { errorSchema } from "../../api/wire.ts";
import type { MerchantSettings } from "../../domain/merchant/types.ts";
import type { MerchantSettingsAdmin } from "../admin/merchant-admin.ts";
import { type Guards, requireSecretKey } from "../auth.ts";

export interface MerchantSettingsRouteOptions {
  guards: Guards;
  settings: Pick<MerchantSettingsAdmin, "settings" | "setSettings">;
}

const errors = { 400: errorSchema, 401: errorSchema, 503: errorSchema };

const view = (s: MerchantSettings) => ({
  object: "settings" as const,
  p2p_pinned_destinations_only: s.p2pPinnedDestinationsOnly,
});

/**
 * The merchant's settings object (docs/MERCHANTS.md, "Settings"), under the secret key: GET reads
 * it, PUT replaces it whole (one field today; a field added later gets a default, so an older
 * client's PUT stays valid). Event-sourced on the merchant actor like the app fee.
 */
export const merchantSettingsRoutes: FastifyPluginAsyncZod<MerchantSettingsRouteOptions> = async (
  app,
  opts,
) => {
  const principalOf = requireSecretKey(app, opts.guards);

  app.get(
    "/v1/settings",
    { schema: { summary: "The merchant's settings", response: { 200: settingsSchema, ...errors } } },
    async (request) => view(await opts.settings.settings(principalOf(request).merchantId)),
  );

  app.put(
    "/v1/settings",
    {
      schema: {
        summary: "Replace the merchant's settings",
        body: settingsBodySchema,
        response: { 200: settingsSchema, ...errors },
      },
    },
    async (request) => {
      const settings = { p2pPinnedDestinationsOnly: request.body.p2p_pinned_destinations_only };
      return view(await opts.settings.setSettings(principalOf(request).merchantId, settings));
    },
  );
};
