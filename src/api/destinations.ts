import { z } from "zod";

// The merchant's pinned destinations (GET and PUT /v1/destinations): one pin per source chain.

export const destinationSchema = z.object({
  source_chain_id: z.number().int(),
  dest_address: z.string(),
  dest_chain_id: z.number().int(),
});
export const destinationsSchema = z.object({ object: z.literal("list"), data: z.array(destinationSchema) });

/** The body of PUT /v1/destinations: one source chain's pin. */
export const pinDestinationBodySchema = z.strictObject({
  source_chain_id: z.number().int().min(1),
  // 0x on an EVM chain, base58 on a Solana one: the route checks it by the destination chain.
  dest_address: z.string().min(1).max(100),
  dest_chain_id: z.number().int().min(1),
});
