import { z } from "zod";
import { amountSchema } from "./payment-sessions.ts";

// The payment link resource (/v1/payment_links); its amount is taken as POST /v1/payment_sessions
// takes it (amountSchema in ./payment-sessions.ts).

export const paymentLinkSchema = z.object({
  id: z.string(),
  object: z.literal("payment_link"),
  active: z.boolean().describe("false once deactivated (an expired link stays active but takes no sessions)"),
  amount: z.string().describe("USDC base units (6 decimals)"),
  currency: z.literal("usdc"),
  description: z.string().nullable(),
  expires_at: z.number().int().nullable().describe("Unix seconds, or null for never"),
  created: z.number().int().describe("Unix seconds"),
  url: z.string().describe("the hosted page, to share with payers"),
});
export type PaymentLinkObject = z.infer<typeof paymentLinkSchema>;

/** The body of POST /v1/payment_links. */
export const createPaymentLinkBodySchema = z.strictObject({
  amount: amountSchema,
  description: z.string().min(1).max(500).optional(),
  expires_at: z.number().int().positive().optional().describe("Unix seconds, in the future"),
});
export const linkParamsSchema = z.object({ id: z.string().min(1).max(64) });
