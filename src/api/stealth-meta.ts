import { z } from "zod";

// The merchant's stealth meta-address (PUT and GET /v1/stealth-meta, docs/STEALTH.md).

const META_ADDRESS =
  "ERC-5564 scheme 1 meta-address: st:eth:0x, then the spending and viewing public keys, each a compressed secp256k1 point (33 bytes of hex)";
const SOL_KEY =
  "the Solana scheme's ed25519 public key (base58, a point of the prime-order subgroup); both Solana keys or neither";

export const stealthMetaSchema = z.object({
  object: z.literal("stealth_meta"),
  meta_address: z.string().describe(META_ADDRESS),
  sol_spend_pubkey: z.string().nullable().describe(SOL_KEY),
  sol_view_pubkey: z.string().nullable().describe(SOL_KEY),
});
export type StealthMetaObject = z.infer<typeof stealthMetaSchema>;

/** The body of PUT /v1/stealth-meta: the whole object (Solana keys absent or null: none). */
export const stealthMetaBodySchema = z.strictObject({
  meta_address: z.string().max(200).describe(META_ADDRESS),
  sol_spend_pubkey: z.string().max(64).nullable().optional().describe(SOL_KEY),
  sol_view_pubkey: z.string().max(64).nullable().optional().describe(SOL_KEY),
});
