import { z } from "zod";
import type { SessionView } from "../domain/view.ts";
import { sessionSchema } from "./sessions.ts";
import { type SolanaSweepTerms, solanaSweepTermsSchema } from "./solana-sweep-terms.ts";

// The checkout session as the merchant API shows it (POST and GET /v1/payment_sessions).

/** Up to 10^30 USDC base units: far above any payment, far below uint256. */
export const amountSchema = z
  .string()
  .regex(/^[1-9][0-9]{0,29}$/, "must be a positive integer string in USDC base units (6 decimals)");

/** The body of POST /v1/payment_sessions. */
export const createPaymentSessionBodySchema = z.strictObject({
  amount: amountSchema,
  source_chain_id: z
    .number()
    .int()
    .min(1)
    .max(Number.MAX_SAFE_INTEGER)
    .optional()
    .describe("A Solana checkout: the Solana chain the payer pays on (EVM checkouts name none)"),
  stealth: z
    .boolean()
    .optional()
    .describe(
      "Flow D: pay a stealth address derived per session from the merchant's stealth meta-address (docs/STEALTH.md)",
    ),
});

export const paymentSessionSchema = z.object({
  id: z.uuid(),
  object: z.literal("payment_session"),
  status: z.string(),
  amount: z.string().describe("USDC base units (6 decimals)"),
  currency: z.literal("usdc"),
  merchant_id: z.string(),
  app_fee_bps: z.number().int(),
  app_fee_recipient: z.string(),
  expires_at: z.number().int().describe("Unix seconds"),
  livemode: z.boolean(),
  session: sessionSchema,
});
export const paymentSessionCreatedSchema = paymentSessionSchema.extend({
  client_secret: z
    .string()
    .describe("cs_...: for the widget, with the publishable key; shown in this answer only"),
  /** A Solana checkout's: what the payer's sweep must pay (docs/SOLANA.md, "The sweep"). */
  sweep: solanaSweepTermsSchema.optional(),
});

// The gateway builds the object from the session's view (src/gateway/checkout.ts), whose status is
// the interface's vocabulary; the schema above serialises it.

/** The payment session object; the creation's answer adds the client secret. */
export interface PaymentSessionObject {
  id: string;
  object: "payment_session";
  status: SessionView["status"];
  /** What the payer owes, USDC base units (6 decimals), decimal string. */
  amount: string;
  currency: "usdc";
  merchant_id: string;
  app_fee_bps: number;
  app_fee_recipient: string;
  /** Unix seconds. */
  expires_at: number;
  livemode: boolean;
  /** The Session object (GET /sessions/:id) as it stands. */
  session: SessionView;
}

export interface PaymentSessionCreated extends PaymentSessionObject {
  /** `cs_...`: for the widget, with the publishable key. Shown once. */
  client_secret: string;
  /** A Solana checkout's sweep terms (`source_chain_id` given): what the payer's sweep must pay. */
  sweep?: SolanaSweepTerms;
}
