import { z } from "zod";

// The merchant's pinned destinations (GET and PUT /v1/destinations): one pin per source chain.

export const destinationSchema = z.object({
  source_chain_id: z.number().int(),
  dest_address: z.string(),
  dest_chain_id: z.number().int(),
});
export const destinationsSchema = z.object({ object: z.literal("list"), data: z.array(destinationSchema) });
