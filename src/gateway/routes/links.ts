import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  linkJsonSchema,
  linkSessionBodySchema,
  linkSessionSchema,
  slugParams,
} from "../../api/public-links.ts";
import type { SolanaSweepTerms } from "../../api/solana-sweep-terms.ts";
import { errorSchema } from "../../api/wire.ts";
import type { LinkRow, LinkStore } from "../../store/payment-links.ts";
import { type GatewayError, gatewayError } from "../errors.ts";
import { closedPage, linkPage, PAGE_CSP } from "../link-page/html.ts";
import type { solanaSweepTerms } from "./solana.ts";

/** A chain a link's session can be paid on: what the page needs to make and authorize a burner. */
export interface PayableChain {
  chain_id: number;
  name: string;
  delegate: string;
  usdc: string;
}

/** A token a link's session can be paid in on a chain, with the amount of it that pays the link. */
export interface PayOption {
  token: string;
  symbol: string;
  decimals: number;
  /** Base units of the token: the link's amount for USDC, else what the sweep's swap turns into it. */
  amount: string;
}

/** The Solana chain a link's session can be paid on instead: USDC only (nothing swaps on Solana here). */
export interface PayableSolana {
  chain_id: number;
  name: string;
  usdc_mint: string;
}

/** The session fields a Solana checkout's sweep terms are read from. */
type SweepTermsSession = Parameters<typeof solanaSweepTerms>[2];

export interface PublicLinkRouteOptions {
  links: Pick<LinkStore, "bySlug">;
  /** Creates a checkout session for the merchant (src/gateway/checkout.ts). */
  checkout: {
    create(input: { merchantId: string; amount: bigint; solanaChainId?: number }): Promise<{
      id: string;
      amount: string;
      client_secret: string;
      expires_at: number;
      session: SweepTermsSession;
    }>;
  };
  /** The merchant's name, shown to the payer (null for a merchant the gateway cannot read yet). */
  merchantName(merchantId: string): Promise<string | null>;
  /** The merchant's active publishable key, or null (none active: the link cannot be paid now). */
  publishableKey(merchantId: string): Promise<string | null>;
  /** The configured chains with a USDC the merchant pinned a destination for, as source chains. */
  payableChains(merchantId: string): Promise<PayableChain[]>;
  /**
   * The Solana chain, when one is configured: `pinned` says whether the merchant pinned a destination
   * for it (then its page offers USDC there), `terms` are a Solana session's sweep terms.
   */
  solana?: {
    chain: PayableSolana;
    pinned(merchantId: string): Promise<boolean>;
    terms(session: SweepTermsSession): SolanaSweepTerms;
  };
  /** The tokens `chain` can be paid in for `amount` USDC, USDC first (read only when a session is made). */
  payOptions(chain: PayableChain, amount: bigint): Promise<PayOption[]>;
  /** The page's bundled script (link-page/bundle.ts). */
  script: () => Promise<string>;
  now: () => number;
}

const SCRIPT_PATH = "/links/assets/page.js";
const errors = { 404: errorSchema, 410: errorSchema };

/** Wants HTML: a browser's Accept names text/html; an API client's (or none) gets JSON. */
const wantsHtml = (accept: string | undefined) =>
  !!accept && /(^|,)\s*text\/html\s*(;|,|$)/i.test(accept) && !/^\s*application\/json/i.test(accept);

/**
 * The public side of payment links (issue 11 item 6), merchant mode only, without a key: the link
 * as JSON or as the hosted page, and a checkout session made from it. A link that takes no more
 * sessions is 410 (deactivated, or past its expires_at), an unknown slug 404.
 */
export const publicLinkRoutes: FastifyPluginAsyncZod<PublicLinkRouteOptions> = async (app, opts) => {
  /** The link behind a slug if it takes sessions now; else the error saying why. */
  const payable = async (slug: string): Promise<LinkRow | GatewayError> => {
    const link = await opts.links.bySlug(slug);
    if (!link) return gatewayError("link_not_found");
    if (link.deactivatedAt !== null) return gatewayError("link_inactive");
    if (link.expiresAt !== null && link.expiresAt <= opts.now()) return gatewayError("link_expired");
    return link;
  };

  /** The Solana chain the merchant takes USDC on, or null. */
  const payableSolana = async (merchantId: string): Promise<PayableSolana | null> =>
    opts.solana && (await opts.solana.pinned(merchantId)) ? opts.solana.chain : null;

  /**
   * The merchant's active pk_, its payable EVM chains and its Solana chain, or null when it cannot
   * take a payment now: no pk_, or no chain at all (a merchant paid on Solana alone is payable).
   */
  const canBePaid = async (merchantId: string) => {
    const [publishableKey, chains, solana] = await Promise.all([
      opts.publishableKey(merchantId),
      opts.payableChains(merchantId),
      payableSolana(merchantId),
    ]);
    return publishableKey && (chains.length > 0 || solana !== null)
      ? { publishableKey, chains, solana }
      : null;
  };

  app.get(SCRIPT_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .type("text/javascript; charset=utf-8")
      .header("cache-control", "no-cache")
      .send(await opts.script()),
  );

  app.get(
    "/links/:slug",
    {
      schema: {
        summary: "A payment link: JSON to an API client, the hosted payment page to a browser",
        params: slugParams,
        response: { 200: linkJsonSchema, ...errors },
      },
    },
    async (request, reply) => {
      const link = await payable(request.params.slug);
      const [merchantName, ready] =
        "slug" in link
          ? await Promise.all([opts.merchantName(link.merchantId), canBePaid(link.merchantId)])
          : [null, null];
      if (!wantsHtml(request.headers.accept)) {
        if (!("slug" in link)) throw link;
        const expires = link.expiresAt === null ? null : Math.floor(link.expiresAt / 1000);
        return {
          object: "payment_link" as const,
          slug: link.slug,
          amount: link.amount,
          currency: "usdc" as const,
          description: link.description,
          expires_at: expires,
          merchant_name: merchantName,
          payable: ready !== null,
        };
      }
      // Start bundling now, so the script is ready when the browser asks for it.
      opts
        .script()
        .catch((err: unknown) => request.log.error({ err }, "the payment page script did not build"));
      const html =
        "slug" in link
          ? linkPage(
              {
                ...link,
                merchantName,
                payable: ready !== null,
                evm: (ready?.chains.length ?? 0) > 0,
                solana: ready?.solana ?? null,
              },
              SCRIPT_PATH,
            )
          : closedPage(link.message);
      return (
        reply
          .code("slug" in link ? 200 : link.status)
          .type("text/html; charset=utf-8")
          .header("content-security-policy", PAGE_CSP)
          .header("cache-control", "no-store")
          // The route's schemas describe its JSON; the page is sent as it is.
          .serializer((body: string) => body)
          .send(html as never)
      );
    },
  );

  app.post(
    "/links/:slug/sessions",
    {
      schema: {
        summary: "Create a checkout session from a payment link (no key): for the hosted page or your own",
        params: slugParams,
        body: linkSessionBodySchema,
        response: { 200: linkSessionSchema, 400: errorSchema, ...errors, 409: errorSchema, 503: errorSchema },
      },
    },
    async (request) => {
      const link = await payable(request.params.slug);
      if (!("slug" in link)) throw link;
      // The merchant's set-up changed since the link was made: a session now could never be paid.
      const ready = await canBePaid(link.merchantId);
      if (ready === null) throw gatewayError("merchant_not_ready");
      const { publishableKey, chains, solana } = ready;
      const solanaChainId = request.body?.source_chain_id;
      if (solanaChainId !== undefined && solana?.chain_id !== solanaChainId)
        throw gatewayError(
          "chain_unsupported",
          `source_chain_id: ${solana ? `only ${solana.chain_id}, the Solana chain this link is paid on` : "this link is not paid on Solana"}; an EVM chain needs no source_chain_id`,
        );
      // Paid on Solana alone: an EVM session could never be paid, so none is made.
      if (solanaChainId === undefined && chains.length === 0 && solana !== null)
        throw gatewayError(
          "chain_unsupported",
          `source_chain_id: this link is paid on Solana only; send { "source_chain_id": ${solana.chain_id} }`,
        );
      const created = await opts.checkout.create({
        merchantId: link.merchantId,
        amount: BigInt(link.amount),
        ...(solanaChainId === undefined ? {} : { solanaChainId }),
      });
      const answer = {
        id: created.id,
        client_secret: created.client_secret,
        publishable_key: publishableKey,
        amount: created.amount,
        expires_at: created.expires_at,
        solana: solana && { ...solana, amount: link.amount },
      };
      if (opts.solana && solanaChainId !== undefined)
        return { ...answer, chains: [], sweep: opts.solana.terms(created.session) };
      return {
        ...answer,
        chains: await Promise.all(
          chains.map(async (c) => ({ ...c, tokens: await opts.payOptions(c, BigInt(link.amount)) })),
        ),
      };
    },
  );
};
