import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { stealthMetaBodySchema, stealthMetaSchema } from "../../api/stealth-meta.ts";
import { errorSchema } from "../../api/wire.ts";
import type { StealthMeta } from "../../domain/merchant/types.ts";
import { formatMetaAddress, parseMetaAddress } from "../../stealth/erc5564.ts";
import { stealthRefusal } from "../../stealth/gating.ts";
import type { StealthMetaAdmin } from "../admin/stealth-meta-admin.ts";
import { type Guards, requireSecretKey } from "../auth.ts";
import { gatewayError } from "../errors.ts";

export interface StealthMetaRouteOptions {
  guards: Guards;
  admin: StealthMetaAdmin;
  /** STEALTH_ENABLED. */
  enabled: boolean;
  /** Every configured chain: a service that runs a mainnet chain offers no stealth at all. */
  chainIds: readonly number[];
  /**
   * The Solana scheme's key check (ed25519, prime-order subgroup): the canonical base58 spelling, or
   * null for a key that is not one. Absent: no Solana stealth scheme here, and Solana keys are refused.
   */
  solanaStealthKey?: ((raw: string) => string | null) | undefined;
}

const errors = { 400: errorSchema, 401: errorSchema, 403: errorSchema, 404: errorSchema, 503: errorSchema };

const view = (m: StealthMeta) => ({
  object: "stealth_meta" as const,
  meta_address: formatMetaAddress(m),
  sol_spend_pubkey: m.solSpendPubkey,
  sol_view_pubkey: m.solViewPubkey,
});

/** Refuses the request when stealth is off or a configured chain is a mainnet (docs/STEALTH.md, "Gating"). */
export function requireStealth(enabled: boolean, chainIds: Iterable<number>): void {
  const refused = stealthRefusal(enabled, chainIds);
  if (refused) throw gatewayError(refused.code, refused.message);
}

/**
 * The merchant's stealth meta-address, under the secret key: PUT replaces it whole (every key checked
 * to be a point of its curve first), GET reads it. Event-sourced on the merchant actor.
 */
export const stealthMetaRoutes: FastifyPluginAsyncZod<StealthMetaRouteOptions> = async (app, opts) => {
  const principalOf = requireSecretKey(app, opts.guards);
  const solanaKey = (raw: string, field: string): string => {
    if (!opts.solanaStealthKey)
      throw gatewayError("invalid_request", `${field}: this service has no Solana stealth scheme`);
    const key = opts.solanaStealthKey(raw);
    if (key === null)
      throw gatewayError(
        "invalid_request",
        `${field}: must be an ed25519 public key in the prime-order subgroup (base58, 32 bytes)`,
      );
    return key;
  };

  app.get(
    "/v1/stealth-meta",
    {
      schema: {
        summary: "The merchant's stealth meta-address",
        response: { 200: stealthMetaSchema, ...errors },
      },
    },
    async (request) => {
      requireStealth(opts.enabled, opts.chainIds);
      const meta = await opts.admin.stealthMeta(principalOf(request).merchantId);
      if (!meta) throw gatewayError("stealth_meta_not_found");
      return view(meta);
    },
  );

  app.put(
    "/v1/stealth-meta",
    {
      schema: {
        summary: "Register (replace) the merchant's stealth meta-address: Flow D sessions derive from it",
        body: stealthMetaBodySchema,
        response: { 200: stealthMetaSchema, ...errors },
      },
    },
    async (request) => {
      requireStealth(opts.enabled, opts.chainIds);
      const { meta_address, sol_spend_pubkey, sol_view_pubkey } = request.body;
      const evm = parseMetaAddress(meta_address);
      if (!evm)
        throw gatewayError(
          "invalid_request",
          "meta_address: must be st:eth:0x followed by two compressed secp256k1 points on the curve (spend, then view; 66 bytes of hex)",
        );
      if ((sol_spend_pubkey == null) !== (sol_view_pubkey == null))
        throw gatewayError(
          "invalid_request",
          "sol_spend_pubkey, sol_view_pubkey: give both Solana keys or neither",
        );
      const meta: StealthMeta = {
        ...evm,
        solSpendPubkey: sol_spend_pubkey == null ? null : solanaKey(sol_spend_pubkey, "sol_spend_pubkey"),
        solViewPubkey: sol_view_pubkey == null ? null : solanaKey(sol_view_pubkey, "sol_view_pubkey"),
      };
      return view(await opts.admin.setStealthMeta(principalOf(request).merchantId, meta));
    },
  );
};
