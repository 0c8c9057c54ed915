// The wire shapes of the stealth withdrawals (docs/API.md, "Stealth routes"; docs/STEALTH.md): POST
// /stealth/withdraw (EVM), shared by the route and, type-only, the client library, and the Solana pair.
import { z } from "zod";
import { base58 } from "./solana.ts";
import { addressSchema, bytes32, decimal, positive256, signature65, uint256 } from "./wire.ts";

/** Unix seconds, as the signed structs carry them (uint256 on chain; a JSON number here). */
const seconds = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const stealthWithdrawBodySchema = z.strictObject({
  stealth_address: addressSchema.describe("the stealth address that holds the USDC and signed both structs"),
  token: addressSchema.describe("the chain's USDC (the only token withdrawn gaslessly)"),
  chain_id: z.number().int().positive(),
  destination: addressSchema.describe("where the balance minus the fee goes, as signed in the Withdraw"),
  fee: uint256("the relay fee in USDC base units"),
  relayer: addressSchema.describe(
    "the service's relayer on this chain, as signed in the Withdraw: paid the fee, the only sender the relay accepts",
  ),
  deadline: seconds.describe("the Withdraw's deadline, unix seconds"),
  authorization: z.strictObject({
    value: positive256("the amount authorized (USDC base units)"),
    valid_after: seconds,
    valid_before: seconds,
    nonce: bytes32,
    signature: signature65.describe("the stealth key's EIP-3009 ReceiveWithAuthorization to the relay"),
  }),
  withdraw_signature: signature65.describe("the stealth key's EIP-712 Withdraw for StealthRelay"),
});

export const stealthWithdrawResponseSchema = z.object({
  tx_hash: z.string(),
  destination: z.string(),
  amount: decimal.describe("USDC delivered to destination"),
  fee: decimal.describe("USDC paid to the relayer"),
});

// POST /stealth/withdraw/solana/prepare and POST /stealth/withdraw/solana.

const requestFields = {
  /** The Solana chain (optional: the service's one Solana chain). */
  chain_id: z.number().int().optional(),
  /** The stealth address (base58) whose whole USDC balance is withdrawn. */
  stealth_address: base58,
  /** The recipient's wallet (base58); its associated USDC account is created if missing. */
  destination: base58,
};

export const solanaWithdrawPrepareBodySchema = z.strictObject(requestFields);
export const solanaWithdrawBodySchema = z.strictObject({
  ...requestFields,
  /** The prepared transaction signed by the stealth address, base64 wire form (at most 1232 bytes). */
  transaction: z.string().min(1).max(1700),
});

export const solanaWithdrawPreparedSchema = z.object({
  chain_id: z.number().int(),
  stealth_address: z.string(),
  destination: z.string(),
  /** The USDC mint. */
  token: z.string(),
  /** The whole balance, base units (decimal string). */
  amount: z.string(),
  /** The relayer: fee payer, and where the closed stealth account's rent goes. */
  fee_payer: z.string(),
  blockhash: z.string(),
  last_valid_block_height: z.number().int(),
  /** Unsigned, base64 wire form: the stealth address signs its message and sends it back. */
  transaction: z.string(),
});

export const solanaWithdrawResponseSchema = z.object({
  chain_id: z.number().int(),
  /** The withdrawal's signature (base58): its id on chain. */
  signature: z.string(),
  destination: z.string(),
  amount: z.string(),
});
