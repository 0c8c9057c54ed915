import type { FastifyPluginAsync } from "fastify";
import type { GatewayChains } from "../../chains/gateway-chains.ts";
import { setupMissing } from "../../domain/merchant/readiness.ts";
import type { LinkStore } from "../../store/payment-links.ts";
import type { LinkAdmin } from "../admin/link-admin.ts";
import type { MerchantView } from "../admin/merchant-admin.ts";
import type { Guards } from "../auth.ts";
import { createPageScript } from "../link-page/bundle.ts";
import { payOptions } from "../pay-amounts.ts";
import type { SolanaPort } from "../ports.ts";
import { type PublicLinkRouteOptions, publicLinkRoutes } from "../routes/links.ts";
import { paymentLinkRoutes } from "../routes/payment-links.ts";
import { solanaSweepTerms } from "../routes/solana.ts";

export interface LinkRouteDeps {
  links: { admin: LinkAdmin; store: Pick<LinkStore, "bySlug"> };
  guards: Guards;
  /** The merchant record, for its current publishable key. */
  merchants: { view(merchantId: string): Promise<MerchantView | null> };
  checkout: PublicLinkRouteOptions["checkout"];
  destinations(merchantId: string): Promise<Array<{ sourceChainId: number }>>;
  chains: Pick<GatewayChains, "payable" | "tokens" | "reads">;
  /** The Solana chain, when one is configured, with its name and the platform fee its sweeps pay. */
  solana?: { port: SolanaPort; name: string; feeBps: number } | undefined;
  publicUrl: string | undefined;
  now: () => number;
}

/**
 * Payment links (merchant mode, with checkout): the merchant's /v1/payment_links routes and the
 * payer's public /links pages, over the same links, merchants and pinned destinations.
 */
export const linksArea: FastifyPluginAsync<LinkRouteDeps> = async (app, deps) => {
  const publishableKey = async (merchantId: string) => {
    const keys = (await deps.merchants.view(merchantId))?.keys ?? [];
    return keys.find((k) => k.type === "publishable" && k.revoked_at === null)?.key ?? null;
  };
  const pinnedChainIds = async (merchantId: string) =>
    (await deps.destinations(merchantId)).map((p) => p.sourceChainId);
  await app.register(paymentLinkRoutes, {
    guards: deps.guards,
    links: deps.links.admin,
    async setupMissing(merchantId) {
      const [pinned, pk] = await Promise.all([pinnedChainIds(merchantId), publishableKey(merchantId)]);
      // The hosted page pays from the chains with a burner delegate and USDC, and in USDC on the
      // Solana chain when one is configured: nowhere else.
      const payableChainIds = [
        ...deps.chains.payable().map((c) => c.chainId),
        ...(deps.solana ? [deps.solana.port.chainId] : []),
      ];
      return setupMissing({ pinnedChainIds: pinned, payableChainIds, publishableKey: pk !== null });
    },
    publicUrl: deps.publicUrl,
    now: deps.now,
  });
  await app.register(publicLinkRoutes, {
    links: deps.links.store,
    checkout: deps.checkout,
    merchantName: async (merchantId) => (await deps.merchants.view(merchantId))?.name ?? null,
    publishableKey,
    async payableChains(merchantId) {
      const pinned = new Set(await pinnedChainIds(merchantId));
      return deps.chains
        .payable()
        .flatMap((c) =>
          pinned.has(c.chainId)
            ? [{ chain_id: c.chainId, name: c.name, delegate: c.delegate, usdc: c.usdc }]
            : [],
        );
    },
    ...(deps.solana ? { solana: linkSolana(deps.solana, pinnedChainIds) } : {}),
    payOptions: (chain, amount) => payOptions(deps.chains, chain, amount),
    script: createPageScript(),
    now: deps.now,
  });
};

/** The Solana chain as the public link routes offer it: its USDC, when the merchant pinned a destination for it. */
function linkSolana(
  solana: NonNullable<LinkRouteDeps["solana"]>,
  pinnedChainIds: (merchantId: string) => Promise<number[]>,
): NonNullable<PublicLinkRouteOptions["solana"]> {
  const { port, name, feeBps } = solana;
  return {
    chain: { chain_id: port.chainId, name, usdc_mint: port.usdcMint },
    pinned: async (merchantId) => (await pinnedChainIds(merchantId)).includes(port.chainId),
    terms: (session) => solanaSweepTerms(port, feeBps, session),
  };
}
