// The wire shapes of POST /stealth/withdraw (docs/API.md, "Stealth routes"), shared by the route and, type-only,
// the client library.
import { z } from "zod";
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
