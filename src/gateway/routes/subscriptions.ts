import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Address, Hex } from "viem";
import {
  cancelBodySchema,
  createSubscriptionBodySchema,
  idParams,
  subIdParams,
  subscriptionSchema,
} from "../../api/subscriptions.ts";
import { errorSchema } from "../../api/wire.ts";
import {
  type SubscriptionAdmin,
  SubscriptionRefusedError,
  type SubscriptionView,
} from "../admin/subscription-admin.ts";
import { type Guards, requireSecretKey } from "../auth.ts";
import { gatewayError } from "../errors.ts";

export interface SubscriptionRouteOptions {
  guards: Guards;
  admin: SubscriptionAdmin;
}

const errors = { 400: errorSchema, 401: errorSchema, 404: errorSchema, 409: errorSchema, 503: errorSchema };

/** The admin's refusals answer with their registered code (409 subscription_exists, 404, 400 ...). */
async function answering(work: Promise<SubscriptionView>): Promise<SubscriptionView> {
  try {
    return await work;
  } catch (err) {
    if (!(err instanceof SubscriptionRefusedError)) throw err;
    throw gatewayError(err.code, err.message, { cause: err });
  }
}

/**
 * The merchant's subscription routes (issue 11 item 7), under the secret key, merchant mode only:
 * register a payer-signed mandate, read one, cancel one. docs/SUBSCRIPTIONS.md.
 */
export const subscriptionRoutes: FastifyPluginAsyncZod<SubscriptionRouteOptions> = async (app, opts) => {
  const { admin } = opts;
  const principalOf = requireSecretKey(app, opts.guards);

  app.post(
    "/v1/subscriptions",
    {
      schema: {
        summary: "Register a payer-signed mandate; 409 when its digest is registered already",
        body: createSubscriptionBodySchema,
        response: { 201: subscriptionSchema, ...errors },
      },
    },
    async (request, reply) => {
      const { chain_id, mandate: m, signature } = request.body;
      const view = await answering(
        admin.register({
          merchantId: principalOf(request).merchantId,
          chainId: chain_id,
          signature: signature as Hex,
          mandate: {
            payer: m.payer as Address,
            token: m.token as Address,
            amount: BigInt(m.amount),
            period: BigInt(m.period),
            start: BigInt(m.start),
            merchant: m.merchant as Address,
            appFeeBps: m.app_fee_bps,
            appFeeRecipient: m.app_fee_recipient as Address,
            salt: m.salt as Hex,
          },
        }),
      );
      return reply.code(201).send(view);
    },
  );

  app.get(
    "/v1/subscriptions/:id",
    {
      schema: {
        summary: "Read a subscription; another merchant's is 404",
        params: idParams,
        response: { 200: subscriptionSchema, ...errors },
      },
    },
    async (request) => {
      const view = await admin.view(principalOf(request).merchantId, request.params.id);
      if (!view) throw gatewayError("subscription_not_found");
      return view;
    },
  );

  app.post(
    "/v1/subscriptions/:id/cancel",
    {
      schema: {
        summary: "Cancel a subscription (idempotent: a canceled one answers as it is)",
        params: idParams,
        response: { 200: subscriptionSchema, ...errors },
      },
    },
    async (request) => answering(admin.cancelByMerchant(principalOf(request).merchantId, request.params.id)),
  );
};

/**
 * The payer's gasless cancel (no auth, as the interface says): the body is the payer's EIP-712
 * Cancel signature over the mandate digest, checked against the mandate's payer; the service relays
 * it on chain (cancelBySig). Merchant mode only.
 */
export const payerSubscriptionRoutes: FastifyPluginAsyncZod<{ admin: SubscriptionAdmin }> = async (
  app,
  opts,
) => {
  app.post(
    "/subscriptions/:sub_id/cancel",
    {
      schema: {
        summary: "The payer's gasless cancel: a signed EIP-712 Cancel(bytes32 mandate)",
        params: subIdParams,
        body: cancelBodySchema,
        response: { 200: subscriptionSchema, ...errors },
      },
    },
    async (request) =>
      answering(opts.admin.cancelByPayer(request.params.sub_id, request.body.signature as Hex)),
  );
};
