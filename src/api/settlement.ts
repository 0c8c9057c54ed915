import { z } from "zod";
import { STATUSES } from "../domain/types.ts";
import {
  addressSchema,
  authorizationSchema,
  bytes32,
  decimal,
  positive256,
  signature65,
  signaturesByChain,
  uint,
  uint256,
} from "./wire.ts";

// Settlement: commit, quote, refunds (src/gateway/routes/settlement.ts and refunds.ts).

/** The Intent in its wire form (snake_case; every uint256 a decimal string). */
export const intentWireSchema = z.strictObject({
  dest_chain_id: uint(1),
  dest_addr: addressSchema,
  min_out: uint256("the USDC floor"),
  deadline: uint(1).describe("Unix seconds"),
  salt: bytes32,
  in_token: addressSchema.describe("the detected token; the zero address for the native coin"),
  max_in: positive256("the detected amount"),
  app_fee_bps: z.number().int().min(0).max(10_000),
  app_fee_recipient: addressSchema,
});
export type IntentWire = z.output<typeof intentWireSchema>;

export const commitBodySchema = z.strictObject({
  burner: addressSchema,
  eip7702_auth: authorizationSchema,
  intent: intentWireSchema,
  intent_sigs: signaturesByChain.describe("source chain id -> the Intent's EIP-712 signature on that chain"),
});
export type CommitBody = z.output<typeof commitBodySchema>;

export const commitResponseSchema = z.object({
  id: z.uuid(),
  status: z.enum(STATUSES),
  fee_bps: z.number().int().describe("platform fee resolved at commit"),
  app_fee_bps: z.number().int(),
  app_fee_recipient: z.string(),
});

export const quoteResponseSchema = z.object({
  estimated_out: decimal.describe("USDC the pool gives for max_in of in_token now"),
  suggested_min_out: decimal.describe("floor(estimated_out * (10000 - slippage_bps) / 10000)"),
  chain_id: z.number().int().describe("the source chain, where the swap happens"),
  in_token: z.string(),
  max_in: decimal,
  slippage_bps: z.number().int(),
});

export const refundBodySchema = z.strictObject({
  token: addressSchema.describe("the zero address for the native coin"),
  to: addressSchema,
  amount: positive256("the amount in base units"),
  deadline: uint(1).describe("Unix seconds; must be in the future"),
  salt: bytes32,
  signature: signature65,
  chain_id: uint(1),
});
export type RefundBody = z.output<typeof refundBodySchema>;

export const refundResponseSchema = z.object({ tx_hash: z.string(), to: z.string(), token: z.string() });

export const standingRefundResponseSchema = z.object({
  id: z.uuid(),
  status: z.enum(STATUSES),
  standing_refund: z.object({
    to: z.string(),
    deadline: z.number().int(),
    signatures: z.record(z.string(), z.string()),
  }),
});

export const refundAllBodySchema = z.strictObject({
  token: z
    .union([z.literal("native"), addressSchema])
    .describe("an ERC-20 0x address, or `native` for the chain's coin"),
  chain_id: uint(1),
});

export const refundAllResponseSchema = z.object({
  tx_hash: z.string(),
  refund_address: z.string(),
  token: z.string(),
  amount: z.literal("full"),
});
