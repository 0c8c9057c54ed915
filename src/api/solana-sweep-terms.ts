import { z } from "zod";

/**
 * What the payer's client needs to build the sweep it signs after detection (docs/SOLANA.md, "The
 * sweep"): who pays the fee, where the money goes and which fees it carries.
 */
export const solanaSweepTermsSchema = z.object({
  chain_id: z.number().int(),
  usdc_mint: z.string(),
  /** The relayer: fee payer of the sweep, and the platform fee's recipient. */
  fee_payer: z.string(),
  /** The platform fee in basis points as configured now; the commit resolves it again. */
  fee_bps: z.number().int(),
  app_fee_bps: z.number().int(),
  app_fee_recipient_sol: z.string().nullable(),
  /** The owner the delivery goes to: the destination itself on Solana, the service's vault for an EVM one. */
  sweep_to: z.string(),
  /**
   * Flow D (docs/STEALTH.md): `sweep_to` is a fresh stealth address with no USDC account yet, so the
   * sweep first opens it (the idempotent create, the fee payer paying its rent).
   */
  open_sweep_to: z.boolean(),
});

export type SolanaSweepTerms = z.output<typeof solanaSweepTermsSchema>;
