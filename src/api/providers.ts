import { isAddress } from "@solana/kit";
import { z } from "zod";

/**
 * The wire shapes of the provider-backed routes (docs/API.md, "Token options, balances and swap
 * quotes"): GET /sessions/:id/token-options, GET /balances and POST /quote.
 */

/** A 0x address, lower-cased (how the EVM side spells it), or null. */
export const evmSpelling = (raw: string): `0x${string}` | null =>
  /^0x[0-9a-fA-F]{40}$/.test(raw) ? (raw.toLowerCase() as `0x${string}`) : null;
/** A base58 public key (Solana's spelling, case kept), or null. */
export const solanaSpelling = (raw: string): string | null => (isAddress(raw) ? raw : null);

/** A wallet as a query parameter: a 0x address (EVM) or a base58 public key (Solana). */
export const walletSchema = z
  .string()
  .max(64)
  .transform((raw, ctx) => {
    const evm = evmSpelling(raw);
    if (evm !== null) return { family: "evm" as const, address: evm };
    const solana = solanaSpelling(raw);
    if (solana !== null) return { family: "solana" as const, address: solana };
    ctx.addIssue({ code: "custom", message: "must be a 0x address or a base58 Solana public key" });
    return z.NEVER;
  });

export const tokenOptionsQuerySchema = z.strictObject({ wallet: walletSchema });
export const balancesQuerySchema = z.strictObject({ address: walletSchema });

export const tokenOptionSchema = z.object({
  chain_id: z.number().int(),
  token: z.string().describe("0x ERC-20 address, base58 mint, or `native`"),
  symbol: z.string(),
  name: z.string(),
  decimals: z.number().int(),
  amount: z.string().describe("decimal base units"),
  price_usd: z.number(),
  value_usd: z.number(),
  logo: z.string().nullable().describe("URL; null when the provider has no logo for the token"),
});

export const tokenOptionsResponseSchema = z.object({
  wallet: z.string(),
  ecosystem: z.enum(["evm", "solana"]),
  options: z.array(tokenOptionSchema).describe("sorted by value_usd, descending"),
});

export const balancesResponseSchema = z.object({
  address: z.string(),
  ecosystem: z.enum(["evm", "solana"]),
  balances: z.array(tokenOptionSchema).describe("sorted by value_usd, descending"),
});

/**
 * A token of a quote: `native` or a 0x ERC-20 address (lower-cased) on an EVM chain, a base58 mint on
 * Solana; which family the chain takes is the route's check.
 */
const tokenSchema = z
  .string()
  .max(64)
  .transform((raw, ctx) => {
    if (raw === "native") return raw;
    const spelled = solanaSpelling(raw) ?? evmSpelling(raw);
    if (spelled !== null) return spelled;
    ctx.addIssue({ code: "custom", message: "must be `native`, a 0x address or a base58 mint" });
    return z.NEVER;
  });
const amountSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,77}$/, "must be a positive decimal integer in base units")
  .transform((v) => BigInt(v))
  .refine((v) => v < 2n ** 256n, "must fit in 256 bits");

export const swapQuoteBodySchema = z.strictObject({
  chain_id: z.number().int().positive(),
  sell_token: tokenSchema.describe("EVM: 0x ERC-20 address or `native`; Solana: base58 mint"),
  buy_token: tokenSchema.optional().describe("as sell_token; the chain's USDC when absent"),
  sell_amount: amountSchema,
  taker: walletSchema.describe(
    "the wallet that swaps (0x on EVM: sends the transaction and receives the tokens bought; base58 on Solana)",
  ),
  slippage_bps: z.number().int().min(0).max(5000).optional().describe("QUOTE_SLIPPAGE_BPS when absent"),
});
export type SwapQuoteBody = z.output<typeof swapQuoteBodySchema>;

const decimal = z.string().describe("decimal integer");
const evmSwapQuoteSchema = z.object({
  ecosystem: z.literal("evm"),
  chain_id: z.number().int(),
  sell_token: z.string(),
  buy_token: z.string(),
  sell_amount: decimal,
  buy_amount: decimal,
  min_buy_amount: decimal.describe("the least the transaction delivers; below it, it reverts"),
  slippage_bps: z.number().int(),
  allowance_target: z
    .string()
    .nullable()
    .describe("approve it for sell_amount first; null when selling the coin"),
  transaction: z.object({
    to: z.string(),
    data: z.string(),
    value: decimal.describe("wei"),
    gas: decimal.nullable(),
    gas_price: decimal.nullable(),
  }),
  issues: z.object({
    allowance: z.object({ actual: decimal, spender: z.string() }).nullable(),
    balance: z.object({ token: z.string(), actual: decimal, expected: decimal }).nullable(),
  }),
});

/** A Solana quote: what selling buys through the aggregator's route; no transaction (docs/API.md). */
const solanaSwapQuoteSchema = z.object({
  ecosystem: z.literal("solana"),
  chain_id: z.number().int(),
  sell_token: z.string().describe("base58 mint"),
  buy_token: z.string().describe("base58 mint"),
  sell_amount: decimal,
  buy_amount: decimal,
  min_buy_amount: decimal.describe("the least the route delivers at slippage_bps"),
  slippage_bps: z.number().int(),
  price_impact_pct: z
    .string()
    .describe("how far the route's price is below the spot price, a decimal fraction"),
  route: z.array(z.object({ amm_key: z.string(), label: z.string(), percent: z.number() })),
  context_slot: z.number().int().nullable().describe("the slot the aggregator quoted at"),
});

export const swapQuoteResponseSchema = z.discriminatedUnion("ecosystem", [
  evmSwapQuoteSchema,
  solanaSwapQuoteSchema,
]);
