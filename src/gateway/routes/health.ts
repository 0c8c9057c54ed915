import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { z } from "zod";
import { healthReportSchema } from "../../api/health.ts";
import { errorSchema } from "../../api/wire.ts";
import { gatewayError } from "../errors.ts";
import type { HealthPort, HealthReport } from "../ports.ts";

export interface HealthRoutesOptions {
  health: HealthPort;
}

/** GET /health: 200 with the report when healthy, 503 with the same report otherwise. Not rate limited. */
export const healthRoutes: FastifyPluginAsyncZod<HealthRoutesOptions> = async (app, opts) => {
  app.get(
    "/health",
    {
      config: { rateLimitExempt: true },
      schema: {
        summary: "Database, indexer freshness and relayer gas",
        response: { 200: healthReportSchema, 503: healthReportSchema.or(errorSchema) },
      },
    },
    async (request, reply) => {
      let report: Awaited<ReturnType<HealthPort["check"]>>;
      try {
        report = await opts.health.check();
      } catch (err) {
        // A check that cannot even run is unhealthy, not an internal error of the gateway.
        request.log.error({ err }, "health check failed");
        throw gatewayError("health_check_failed");
      }
      reply.header("cache-control", "no-store");
      return reply.code(report.healthy ? 200 : 503).send(report);
    },
  );
};

// Compile-time guard: the response schema accepts what the health port produces.
const healthFits = (h: HealthReport): z.input<typeof healthReportSchema> => h;
void healthFits;
