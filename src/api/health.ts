import { z } from "zod";

// GET /health: the report, 200 when healthy and 503 otherwise (docs/OPERATIONS.md).

const nullable = <T extends z.ZodType>(t: T) => t.nullable();
const check = z.object({ ok: z.boolean(), error: nullable(z.string()) });
export const healthReportSchema = z.object({
  healthy: z.boolean(),
  checks: z.object({
    database: check.extend({ latency_ms: nullable(z.number()) }),
    indexers: z.array(
      check.extend({
        chain_id: z.number().int(),
        last_block: nullable(z.number()),
        lag_seconds: nullable(z.number()),
      }),
    ),
    relayers: z.array(
      check.extend({
        chain_id: z.number().int(),
        address: nullable(z.string()),
        balance_wei: nullable(z.string()),
        min_balance_wei: z.string(),
      }),
    ),
  }),
});
