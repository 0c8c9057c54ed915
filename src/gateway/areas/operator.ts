import type { FastifyPluginAsync } from "fastify";
import type { Operator } from "../../operator/operator.ts";
import type { HealthPort } from "../ports.ts";
import { healthRoutes } from "../routes/health.ts";
import { operatorRoutes } from "../routes/operator.ts";

export interface OperatorAreaOptions {
  health: HealthPort;
  /** The operator's tools (docs/OPERATIONS.md), with OPERATOR_SECRET: their routes exist with both. */
  tools: { operator: Operator; secret: string } | undefined;
}

/** What the people running the service use: GET /health, and the operator's /v1/operator/* tools. */
export const operatorArea: FastifyPluginAsync<OperatorAreaOptions> = async (app, opts) => {
  await app.register(healthRoutes, { health: opts.health });
  if (opts.tools) await app.register(operatorRoutes, opts.tools);
};
