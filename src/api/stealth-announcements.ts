import { z } from "zod";

// GET /sessions/:id/stealth (docs/STEALTH.md): a Flow D session's announcements, one per scheme.

export const stealthAnnouncementSchema = z.object({
  scheme: z
    .string()
    .describe('"erc5564-1" (ERC-5564 scheme 1, secp256k1) or "solana-ed25519-1" (docs/STEALTH.md)'),
  ephemeral_pubkey: z
    .string()
    .describe("0x hex compressed secp256k1 key (erc5564-1); the 32-byte ed25519 key for the Solana scheme"),
  view_tag: z.number().int().describe("the first byte of the hashed shared secret, 0-255"),
  stealth_address: z.string().describe("where the session pays on a chain of the scheme's family"),
  chain_id: z
    .number()
    .int()
    .nullable()
    .describe(
      "the chain the announcement is (or will be) on: the session's destination chain; null while not known",
    ),
  tx: z.string().nullable().describe("the announcement's transaction; null until it is on chain"),
});
export type StealthAnnouncementObject = z.infer<typeof stealthAnnouncementSchema>;

export const stealthAnnouncementsSchema = z.object({ announcements: z.array(stealthAnnouncementSchema) });
export type StealthAnnouncements = z.infer<typeof stealthAnnouncementsSchema>;
