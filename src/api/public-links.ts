import { z } from "zod";
import { solanaSweepTermsSchema } from "./solana-sweep-terms.ts";

// The public side of payment links (GET and POST /links/:slug, no key): the link as JSON, and the
// checkout session a payer's page makes from it.

export const slugParams = z.object({ slug: z.string().min(1).max(64) });
export const linkJsonSchema = z.object({
  object: z.literal("payment_link"),
  slug: z.string(),
  amount: z.string().describe("USDC base units (6 decimals)"),
  currency: z.literal("usdc"),
  description: z.string().nullable(),
  expires_at: z.number().int().nullable().describe("Unix seconds, or null for never"),
  merchant_name: z.string().nullable().describe("who the payer pays: the merchant's name"),
  payable: z
    .boolean()
    .describe("whether a session can be made now (false: the merchant cannot take payments right now)"),
});
export const linkSessionSchema = z.object({
  id: z.string(),
  client_secret: z.string().describe("cs_...: the session's client secret, for the payer's page only"),
  publishable_key: z.string().describe("the merchant's current pk_"),
  amount: z.string().describe("USDC base units (6 decimals)"),
  expires_at: z.number().int().describe("Unix seconds"),
  chains: z
    .array(
      z.object({
        chain_id: z.number().int(),
        name: z.string(),
        delegate: z.string(),
        usdc: z.string(),
        tokens: z
          .array(
            z.object({
              token: z.string().describe("the ERC-20, the zero address for the coin, or the mint"),
              symbol: z.string(),
              decimals: z.number().int(),
              amount: z.string().describe("base units of the token that pay the link's amount"),
            }),
          )
          .describe("what the chain can be paid in, USDC first; a token with no price now is left out"),
      }),
    )
    .describe(
      "where the session can be paid: the burner's authorization targets `delegate`; empty for a Solana session",
    ),
  solana: z
    .object({
      chain_id: z.number().int(),
      name: z.string(),
      usdc_mint: z.string().describe("base58"),
      amount: z.string().describe("USDC base units that pay the link"),
    })
    .nullable()
    .describe(
      "the Solana chain the merchant also takes USDC on: POST again with its `source_chain_id` for a Solana session; null when none",
    ),
  sweep: solanaSweepTermsSchema
    .optional()
    .describe("a Solana session's: what the sweep its burner signs must pay (docs/SOLANA.md)"),
});
export const linkSessionBodySchema = z
  .object({
    source_chain_id: z
      .number()
      .int()
      .optional()
      .describe("the Solana chain's id (`solana.chain_id`) for a Solana session; absent: an EVM one"),
  })
  .strict()
  // No body at all, as a page of your own may send it: an EVM session.
  .nullish();
