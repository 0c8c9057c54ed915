import { z } from "zod";
import { MAX_FEE_BPS } from "../domain/settlement.ts";
import { addressSchema } from "./wire.ts";

// The merchant's app fee (GET and PUT /v1/app_fee): what its checkout sessions sign into their Intents,
// and where a Solana checkout's sweep pays it (`app_fee_recipient_sol`, base58; null when unset).

export const appFeeSchema = z.object({
  app_fee_bps: z.number().int(),
  app_fee_recipient: z.string(),
  app_fee_recipient_sol: z.string().nullable(),
});

/** The contract lets platform fee + app fee reach 100%; the platform fee takes up to MAX_FEE_BPS. */
const MAX_APP_FEE_BPS = 10_000 - MAX_FEE_BPS;

/** The body of PUT /v1/app_fee: the whole app fee, both sinks. */
export const appFeeBodySchema = z.strictObject({
  app_fee_bps: z.number().int().min(0).max(MAX_APP_FEE_BPS),
  app_fee_recipient: addressSchema,
  /** Base58: where a Solana checkout's sweep pays the fee. Absent or null: none (the PUT sets it all). */
  app_fee_recipient_sol: z.string().max(64).nullable().optional(),
});
