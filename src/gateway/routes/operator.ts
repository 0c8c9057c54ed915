import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  builtSchema,
  deadLettersQuerySchema,
  deadLettersSchema,
  journalSchema,
  lagSchema,
  readModelsSchema,
  redriveBodySchema,
  redrivenSchema,
  tableBodySchema,
} from "../../api/operator.ts";
import { sessionParamsSchema } from "../../api/sessions.ts";
import { errorSchema } from "../../api/wire.ts";
import { type Operator, OperatorRefused } from "../../operator/operator.ts";
import { operatorGuard } from "../auth.ts";
import { gatewayError } from "../errors.ts";

export interface OperatorRouteOptions {
  operator: Operator;
  secret: string;
}

const errors = { 400: errorSchema, 401: errorSchema, 404: errorSchema, 409: errorSchema, 503: errorSchema };

/** An operator tool's refusal answers with its registered code (404 not_parked, 409 read_model_behind...). */
async function answering<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof OperatorRefused) throw gatewayError(err.code, err.shortMessage, { cause: err });
    throw err;
  }
}

/**
 * The operator's tools (docs/OPERATIONS.md) under `Authorization: Bearer <OPERATOR_SECRET>`, checked
 * on request before any body is read; registered only when OPERATOR_SECRET is set (404 otherwise).
 */
export const operatorRoutes: FastifyPluginAsyncZod<OperatorRouteOptions> = async (app, opts) => {
  const { operator } = opts;
  const guard = operatorGuard(opts.secret);
  app.addHook("onRequest", async (request) => guard(request));

  app.get(
    "/v1/operator/sessions/:id/journal",
    {
      schema: {
        summary:
          "A session's journal: every event on session.events, decoded, with partition, offset and time",
        params: sessionParamsSchema,
        response: { 200: journalSchema, ...errors },
      },
    },
    (request) => answering(operator.journal(request.params.id)),
  );

  app.get(
    "/v1/operator/dead-letters",
    {
      schema: {
        summary: "The records parked on the dead-letter topic, oldest first, each with its re-drive if any",
        querystring: deadLettersQuerySchema,
        response: { 200: deadLettersSchema, ...errors },
      },
    },
    async (request) => ({ data: await operator.deadLetters(request.query.topic) }),
  );

  app.post(
    "/v1/operator/dead-letters/redrive",
    {
      schema: {
        summary: "Send one parked record back to its topic and partition, once",
        body: redriveBodySchema,
        response: { 200: redrivenSchema, ...errors },
      },
    },
    (request) => answering(operator.redrive(request.body)),
  );

  app.get(
    "/v1/operator/lag",
    {
      schema: {
        summary: "Consumer lag per role: each group's committed offsets against the high watermarks",
        response: { 200: lagSchema, ...errors },
      },
    },
    () => operator.lag(),
  );

  app.get(
    "/v1/operator/read-models",
    {
      schema: {
        summary: "The sessions read-model tables: the active one, the followed ones, the retired ones",
        response: { 200: readModelsSchema, ...errors },
      },
    },
    () => operator.readModels(),
  );

  app.post(
    "/v1/operator/read-models",
    {
      schema: {
        summary:
          "Replay session.events into a new table beside the live one; the projectors then keep it current",
        body: tableBodySchema,
        response: { 200: builtSchema, ...errors },
      },
    },
    (request) => answering(operator.build(request.body.table)),
  );

  app.post(
    "/v1/operator/read-models/switch",
    {
      schema: {
        summary: "Make a followed table the one every gateway reads",
        body: tableBodySchema,
        response: { 200: readModelsSchema, ...errors },
      },
    },
    (request) => answering(operator.switchTo(request.body.table)),
  );

  app.post(
    "/v1/operator/read-models/retire",
    {
      schema: {
        summary: "Stop writing a followed table (it is kept until dropped by hand)",
        body: tableBodySchema,
        response: { 200: readModelsSchema, ...errors },
      },
    },
    (request) => answering(operator.retire(request.body.table)),
  );
};
