import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { appFeeBodySchema, appFeeSchema } from "../../api/app-fee.ts";
import { destinationsSchema, pinDestinationBodySchema } from "../../api/destinations.ts";
import {
  createPaymentSessionBodySchema,
  paymentSessionCreatedSchema,
  paymentSessionSchema,
} from "../../api/payment-sessions.ts";
import {
  createSessionHeadersSchema,
  registerBurnerBodySchema,
  registerBurnerResponseSchema,
  sessionIdOf,
  sessionParamsSchema,
} from "../../api/sessions.ts";
import { addressSchema, errorSchema } from "../../api/wire.ts";
import type { GatewayChains } from "../../chains/gateway-chains.ts";
import type { ServiceAddresses } from "../../chains/service-addresses.ts";
import type { RegisterBurner } from "../../domain/commands.ts";
import type { AppFee } from "../../domain/merchant/types.ts";
import type { MerchantSettingsAdmin } from "../admin/merchant-admin.ts";
import { type CheckoutResource, type Guards, requireSecretKey } from "../auth.ts";
import { type CheckoutSessions, paymentSessionObject } from "../checkout.ts";
import { gatewayError, replyError } from "../errors.ts";
import type { KeyMode } from "../merchant-keys.ts";
import type { CommandPort, SessionReadPort, SolanaPort } from "../ports.ts";
import { refuseServiceBurner } from "./sessions.ts";
import { solanaSweepTerms } from "./solana.ts";
import { requireStealth } from "./stealth-meta.ts";

const errors = {
  400: errorSchema,
  401: errorSchema,
  403: errorSchema,
  404: errorSchema,
  409: errorSchema,
  503: errorSchema,
};

export interface CheckoutRouteOptions {
  guards: Guards;
  checkout: CheckoutSessions;
  settings: MerchantSettingsAdmin;
  sessions: SessionReadPort;
  mode: KeyMode;
  /** The chains a destination may be pinned for (source) and to (destination). */
  chainIds: readonly number[];
  /**
   * The Solana chain's side, when one is configured: Solana checkouts, pins to a Solana destination
   * and the app fee's Solana sink (docs/SOLANA.md, "Merchant checkout on Solana").
   */
  solana?: SolanaPort | undefined;
  /** The platform fee now, for a Solana checkout's sweep terms. */
  feeBps: number;
  /** STEALTH_ENABLED: whether Flow D sessions may be created (docs/STEALTH.md, "Gating"). */
  stealthEnabled: boolean;
}

/**
 * The merchant's side of checkout (issue 11 item 4), under the secret key: create and read payment
 * sessions, pin a destination per source chain, set the app fee. docs/MERCHANTS.md, "Checkout".
 */
export const checkoutMerchantRoutes: FastifyPluginAsyncZod<CheckoutRouteOptions> = async (app, opts) => {
  const principalOf = requireSecretKey(app, opts.guards);
  const listOf = (pins: Array<{ sourceChainId: number; destAddress: string; destChainId: number }>) => ({
    object: "list" as const,
    data: pins
      .map((p) => ({
        source_chain_id: p.sourceChainId,
        dest_address: p.destAddress,
        dest_chain_id: p.destChainId,
      }))
      .sort((a, b) => a.source_chain_id - b.source_chain_id),
  });
  const knownChain = (id: number, field: string) => {
    if (!opts.chainIds.includes(id))
      throw gatewayError("invalid_request", `${field}: chain ${id} is not a chain of this service`);
  };
  /** A Solana public key in its canonical spelling, or a 400 naming the field. */
  const solanaKey = (raw: string, field: string): string => {
    if (!opts.solana) throw gatewayError("chain_unsupported", `${field}: no Solana chain is configured`);
    const parsed = opts.solana.parseAddress(raw);
    if (parsed === null)
      throw gatewayError("invalid_request", `${field}: must be a Solana public key (base58, 32 bytes)`);
    return parsed;
  };
  /** The destination's address in its chain family's spelling: base58 on Solana, 0x elsewhere. */
  const destAddressFor = (raw: string, sourceChainId: number, destChainId: number): string => {
    if (destChainId === opts.solana?.chainId) {
      // Only a Solana sweep pays a Solana address: an EVM deposit has no way there.
      if (sourceChainId !== destChainId)
        throw gatewayError(
          "invalid_request",
          "dest_chain_id: a Solana destination is paid only from a deposit on that Solana chain",
        );
      return solanaKey(raw, "dest_address");
    }
    const evm = addressSchema.safeParse(raw);
    if (!evm.success)
      throw gatewayError("invalid_request", "dest_address: must be a 0x address (20 bytes of hex)");
    return evm.data;
  };

  app.post(
    "/v1/payment_sessions",
    {
      schema: {
        summary: "Create a checkout session (without an Idempotency-Key every call creates a new one)",
        headers: createSessionHeadersSchema,
        body: createPaymentSessionBodySchema,
        response: { 200: paymentSessionCreatedSchema, ...errors },
      },
    },
    async (request) => {
      const key = request.headers["idempotency-key"];
      const chainId = request.body.source_chain_id;
      const solana = chainId === undefined ? undefined : opts.solana;
      if (chainId !== undefined && chainId !== solana?.chainId)
        throw gatewayError(
          "chain_unsupported",
          `source_chain_id: ${chainId} is not a configured Solana chain (an EVM checkout takes its chain from the burner's authorization)`,
        );
      const stealth = request.body.stealth === true;
      if (stealth) requireStealth(opts.stealthEnabled, opts.chainIds);
      const created = await opts.checkout.create({
        merchantId: principalOf(request).merchantId,
        amount: BigInt(request.body.amount),
        ...(key === undefined ? {} : { idempotencyKey: key }),
        ...(chainId === undefined ? {} : { solanaChainId: chainId }),
        ...(stealth ? { stealth } : {}),
      });
      // What the widget's payer needs to build the sweep it signs after detection.
      return solana
        ? { ...created, sweep: solanaSweepTerms(solana, opts.feeBps, created.session, stealth) }
        : created;
    },
  );

  app.get(
    "/v1/payment_sessions/:id",
    {
      schema: {
        summary: "Read one of the merchant's checkout sessions",
        params: sessionParamsSchema,
        response: { 200: paymentSessionSchema, ...errors },
      },
    },
    async (request, reply) => {
      const record = await opts.sessions.get(request.params.id);
      // Another merchant's session, or an anonymous one: not found, so existence cannot be probed.
      if (record === null || record.session.merchant_id !== principalOf(request).merchantId)
        throw gatewayError("session_not_found");
      reply.header("cache-control", "no-store");
      return paymentSessionObject(record.session, opts.mode);
    },
  );

  app.put(
    "/v1/destinations",
    {
      schema: {
        summary: "Pin where checkout money found on one source chain goes (replaces that chain's pin)",
        body: pinDestinationBodySchema,
        response: { 200: destinationsSchema, ...errors },
      },
    },
    async (request) => {
      const { source_chain_id, dest_address, dest_chain_id } = request.body;
      knownChain(source_chain_id, "source_chain_id");
      knownChain(dest_chain_id, "dest_chain_id");
      const pins = await opts.settings.pinDestination(principalOf(request).merchantId, {
        sourceChainId: source_chain_id,
        destAddress: destAddressFor(dest_address, source_chain_id, dest_chain_id),
        destChainId: dest_chain_id,
      });
      return listOf(pins);
    },
  );

  app.get(
    "/v1/destinations",
    {
      schema: {
        summary: "The merchant's pinned destinations",
        response: { 200: destinationsSchema, ...errors },
      },
    },
    async (request) => listOf(await opts.settings.destinations(principalOf(request).merchantId)),
  );

  app.put(
    "/v1/app_fee",
    {
      schema: {
        summary: "Set the app fee the merchant's checkout sessions carry, and its EVM and Solana sinks",
        body: appFeeBodySchema,
        response: { 200: appFeeSchema, ...errors },
      },
    },
    async (request) => {
      const { app_fee_bps, app_fee_recipient, app_fee_recipient_sol } = request.body;
      if (app_fee_bps > 0 && /^0x0{40}$/.test(app_fee_recipient))
        throw gatewayError(
          "invalid_request",
          "app_fee_recipient: a fee needs a recipient other than the zero address",
        );
      const recipientSol =
        app_fee_recipient_sol == null ? null : solanaKey(app_fee_recipient_sol, "app_fee_recipient_sol");
      const fee = await opts.settings.setAppFee(principalOf(request).merchantId, {
        bps: app_fee_bps,
        recipient: app_fee_recipient,
        recipientSol,
      });
      return appFeeObject(fee);
    },
  );

  app.get(
    "/v1/app_fee",
    { schema: { summary: "The merchant's app fee", response: { 200: appFeeSchema, ...errors } } },
    async (request) => appFeeObject(await opts.settings.appFee(principalOf(request).merchantId)),
  );
};

const appFeeObject = (fee: AppFee) => ({
  app_fee_bps: fee.bps,
  app_fee_recipient: fee.recipient,
  app_fee_recipient_sol: fee.recipientSol,
});

export interface RegisterRouteOptions {
  guards: Guards;
  /** The session's merchant and client secret hash, for the checkout guard. */
  resources: (sessionId: string) => Promise<CheckoutResource | null>;
  /** The configured chains: where the burner's authorization and signatures are checked. */
  chains: GatewayChains;
  /** The service's own addresses: no burner may be one (src/chains/service-addresses.ts). */
  serviceAddresses: ServiceAddresses;
  commands: CommandPort;
  newId: () => string;
  /** Unix ms. */
  now: () => number;
}

/**
 * POST /sessions/:id/register: the widget attaches its burner to a checkout session, with the
 * publishable key and the client secret. The authorization is checked like POST /sessions; the
 * session's actor fills the slot once (a second registration, even a concurrent one, is 409).
 */
export const registerRoutes: FastifyPluginAsyncZod<RegisterRouteOptions> = async (app, opts) => {
  /** The session the guard read, whose app fee sink the burner's check needs. */
  const guarded = new WeakMap<object, CheckoutResource>();
  app.post(
    "/sessions/:id/register",
    {
      schema: {
        summary: "Checkout: attach the widget's burner to the session (once, while pending)",
        params: sessionParamsSchema,
        body: registerBurnerBodySchema,
        response: {
          200: registerBurnerResponseSchema,
          ...errors,
        },
      },
      // The key and client secret come first: a caller without them learns nothing of the body rules.
      preValidation: async (request) => {
        const id = sessionIdOf(request.params);
        if (id === null) return; // the params' own 400 follows: no session has such an id
        const resource = await opts.resources(id);
        await opts.guards.checkout(request, resource);
        if (resource) guarded.set(request, resource);
      },
    },
    async (request) => {
      const { id } = request.params;
      const body = request.body;
      const issuedAt = opts.now();
      refuseServiceBurner(opts.serviceAddresses, body.burner_address, [
        guarded.get(request)?.appFeeRecipient ?? null,
      ]);
      const auth = await opts.chains.checks.authorization(body.eip7702_auth, body.burner_address);
      if (!auth.ok) throw gatewayError(auth.code, auth.message);
      if (body.standing_refund !== undefined) {
        const refund = await opts.chains.checks.standingRefund(
          body.standing_refund,
          body.burner_address,
          Math.floor(issuedAt / 1000),
        );
        if (!refund.ok) throw gatewayError(refund.code, refund.message);
      }
      const sr = body.standing_refund;
      const command: RegisterBurner = {
        type: "RegisterBurner",
        data: {
          sessionId: id,
          burner: body.burner_address,
          auth: { ...body.eip7702_auth },
          standingRefund: sr ? { to: sr.to, deadline: sr.deadline, signatures: { ...sr.signatures } } : null,
          bounceSetup: null,
        },
        metadata: { commandId: opts.newId(), issuedAt, replyTo: null },
      };
      const reply = await opts.commands.send(command);
      const refused = replyError(reply);
      if (refused) throw refused;
      const session = reply.session?.session;
      if (!session) throw new Error("the owner accepted RegisterBurner but sent no session");
      return { id: session.id, status: session.status };
    },
  );
};
