import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  createMerchantBodySchema,
  keyParamsSchema,
  merchantCreatedSchema,
  merchantKeyParamsSchema,
  merchantParamsSchema,
  merchantSchema,
  rollBodySchema,
  rolledSchema,
} from "../../api/merchants.ts";
import { errorSchema, noContentSchema } from "../../api/wire.ts";
import type { Config } from "../../config.ts";
import type { MerchantAdmin } from "../admin/merchant-admin.ts";
import { MerchantRefusedError } from "../admin/merchant-commands.ts";
import { type Guards, operatorGuard, requireSecretKey, unauthorized } from "../auth.ts";
import { gatewayError } from "../errors.ts";

export interface MerchantRouteOptions {
  config: Config;
  admin: MerchantAdmin;
  guards: Guards;
}

const errors = { 400: errorSchema, 401: errorSchema, 404: errorSchema, 409: errorSchema, 503: errorSchema };

/** The merchant actor's refusals answer with their registered code (409 merchant_exists, 404 ...). */
async function answering<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof MerchantRefusedError)) throw err;
    // The key the request came with was revoked before its roll was decided (a concurrent roll).
    if (err.code === "key_revoked") throw unauthorized("revoked key");
    throw gatewayError(err.code, undefined, { cause: err });
  }
}

/**
 * The merchant's record and keys under the secret key, and the operator's merchant routes under
 * OPERATOR_SECRET (absent when it is unset). Registered by the merchant area, which exists only when
 * MERCHANT_MODE is on (otherwise every one of them is a 404, as the interface says).
 */
export const merchantRoutes: FastifyPluginAsyncZod<MerchantRouteOptions> = async (app, opts) => {
  const { config, admin, guards } = opts;
  await app.register(secretKeyRoutes, { admin, guards });
  if (config.OPERATOR_SECRET) await app.register(operatorRoutes, { admin, secret: config.OPERATOR_SECRET });
};

/**
 * The routes under the secret key. The key is checked on request, before the body is parsed or
 * validated: a caller without a valid key learns nothing about a route's body (401 comes first).
 */
const secretKeyRoutes: FastifyPluginAsyncZod<Pick<MerchantRouteOptions, "admin" | "guards">> = async (
  app,
  { admin, guards },
) => {
  const principalOf = requireSecretKey(app, guards);
  const merchantOf = (request: FastifyRequest): string => principalOf(request).merchantId;

  app.get(
    "/v1/merchant",
    {
      schema: {
        summary: "The authenticated merchant (no secrets)",
        response: { 200: merchantSchema, ...errors },
      },
    },
    async (request) => {
      const merchant = await admin.view(merchantOf(request));
      if (!merchant) throw gatewayError("merchant_not_found");
      return merchant;
    },
  );

  app.post(
    "/v1/keys/roll",
    {
      schema: {
        summary: "Roll the merchant's key of a type (default secret): the old one is revoked at once",
        body: rollBodySchema,
        response: { 200: rolledSchema, ...errors },
      },
    },
    async (request) => {
      const type = request.body?.type ?? "secret";
      const { merchantId, keyId } = principalOf(request);
      // Rolling the secret key replaces the one this request came with: of two concurrent rolls with
      // it, one wins and the other is 401 (its key is revoked), instead of two new keys, one dead.
      const rolled = await answering(admin.roll(merchantId, type, type === "secret" ? keyId : null));
      return { id: rolled.keyId, type, key: rolled.key };
    },
  );

  app.post(
    "/v1/keys/:key_id/revoke",
    {
      schema: {
        summary: "Revoke one of the merchant's keys",
        params: keyParamsSchema,
        response: { 204: noContentSchema, ...errors },
      },
    },
    async (request, reply) => {
      await answering(admin.revoke(merchantOf(request), request.params.key_id));
      return reply.code(204).send(null);
    },
  );
};

/** Operator-only: `Authorization: Bearer <OPERATOR_SECRET>`. */
const operatorRoutes: FastifyPluginAsyncZod<{ admin: MerchantAdmin; secret: string }> = async (app, opts) => {
  const { admin } = opts;
  const guard = operatorGuard(opts.secret);
  // On request, like the secret key: a caller without the secret learns nothing about the bodies.
  app.addHook("onRequest", async (request) => guard(request));

  app.post(
    "/v1/operator/merchants",
    {
      schema: {
        summary: "Create a merchant; its pk_ and sk_ are answered once",
        body: createMerchantBodySchema,
        response: { 201: merchantCreatedSchema, ...errors },
      },
    },
    async (request, reply) => {
      const created = await answering(admin.create(request.body));
      return reply.code(201).send({
        merchant: created.merchant,
        publishable_key: created.publishableKey,
        secret_key: created.secretKey,
      });
    },
  );

  app.post(
    "/v1/operator/merchants/:id/keys/roll",
    {
      schema: {
        summary: "Roll a merchant's key of a type (default secret)",
        params: merchantParamsSchema,
        body: rollBodySchema,
        response: { 200: rolledSchema, ...errors },
      },
    },
    async (request) => {
      const type = request.body?.type ?? "secret";
      const rolled = await answering(admin.roll(request.params.id, type));
      return { id: rolled.keyId, type, key: rolled.key };
    },
  );

  app.post(
    "/v1/operator/merchants/:id/keys/:key_id/revoke",
    {
      schema: {
        summary: "Revoke one of a merchant's keys",
        params: merchantKeyParamsSchema,
        response: { 204: noContentSchema, ...errors },
      },
    },
    async (request, reply) => {
      await answering(admin.revoke(request.params.id, request.params.key_id));
      return reply.code(204).send(null);
    },
  );
};
