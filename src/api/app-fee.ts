import { z } from "zod";

// The merchant's app fee (GET and PUT /v1/app_fee): what its checkout sessions sign into their Intents,
// and where a Solana checkout's sweep pays it (`app_fee_recipient_sol`, base58; null when unset).

export const appFeeSchema = z.object({
  app_fee_bps: z.number().int(),
  app_fee_recipient: z.string(),
  app_fee_recipient_sol: z.string().nullable(),
});
