import type { FastifyRequest } from "fastify";
import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { z } from "zod";
import { sessionIdOf, sessionParamsSchema, standingRefundSchema } from "../../api/sessions.ts";
import {
  type CommitBody,
  commitBodySchema,
  commitResponseSchema,
  type IntentWire,
  quoteResponseSchema,
  standingRefundResponseSchema,
} from "../../api/settlement.ts";
import { isSolanaCommitBody } from "../../api/solana.ts";
import { errorSchema } from "../../api/wire.ts";
import type { AttachStandingRefund, CommitIntent } from "../../domain/commands.ts";
import type { DestinationPin } from "../../domain/merchant/types.ts";
import type { Address, Intent } from "../../domain/types.ts";
import type { GatewayReply } from "../../records/gateway-replies.ts";
import type { SessionStateRecord } from "../../records/session-state.ts";
import { type CheckoutResource, type Guards, unauthorized } from "../auth.ts";
import { isCheckoutSession } from "../checkout.ts";
import { gatewayError, replyError } from "../errors.ts";
import type { ChainReadPort, LiveUpdatesPort, SessionReadPort } from "../ports.ts";
import { canonicalJson, type SessionContext, uuidFrom } from "./sessions.ts";

export interface SettlementRoutesOptions extends Omit<SessionContext, "serviceAddresses"> {
  live: LiveUpdatesPort;
  chainReads: ChainReadPort;
  /** Merchant mode: the checkout guard and pinned destinations (absent: no checkout session exists). */
  checkout?: CheckoutAccess | undefined;
  /** A commit with a Solana body (docs/SOLANA.md, "The sweep"); absent without a Solana chain. */
  solanaCommit?:
    | ((sessionId: string, body: unknown) => Promise<z.input<typeof commitResponseSchema>>)
    | undefined;
}

/** What commit and quote need to guard a checkout session (docs/MERCHANTS.md, "Checkout"). */
export interface CheckoutAccess {
  guards: Guards;
  resources: (sessionId: string) => Promise<CheckoutResource | null>;
  /** The merchant's pinned destinations as they are now. */
  destinations: (merchantId: string) => Promise<DestinationPin[]>;
}

/**
 * A checkout session needs the publishable key and its client secret; an anonymous one (and a
 * pk-tagged P2P request) is open. Without merchant mode no checkout session can be reached.
 */
export async function guardCheckout(
  request: FastifyRequest,
  session: Pick<SessionStateRecord["session"], "id" | "merchant_id" | "flow">,
  checkout: CheckoutAccess | undefined,
): Promise<void> {
  if (!isCheckoutSession(session)) return;
  if (!checkout) throw unauthorized("checkout sessions need merchant mode");
  await checkout.guards.checkout(request, await checkout.resources(session.id));
}

/** Every status a settlement route can answer with besides 200 (the OpenAPI document lists them). */
export const settlementErrors = Object.fromEntries(
  [400, 404, 409, 413, 415, 429, 500, 502, 503, 504].map((status) => [status, errorSchema]),
);

/**
 * POST /sessions/:id/commit, GET /sessions/:id/quote and POST /sessions/:id/standing-refund. Every
 * signature is checked here, before a command is sent: the session core is pure and trusts them.
 * The refunds are in ./refunds.ts.
 */
export const settlementRoutes: FastifyPluginAsyncZod<SettlementRoutesOptions> = async (app, opts) => {
  const { config, chains, commands, sessions, chainReads, newId, now, checkout } = opts;
  /** A commit's session as its guard read it (preValidation), for its handler. */
  const guarded = new WeakMap<FastifyRequest, SessionStateRecord>();

  app.post(
    "/sessions/:id/commit",
    {
      schema: {
        summary: "Commit the burner-signed Intent after the deposit is detected",
        params: sessionParamsSchema,
        body: commitBodySchema,
        response: { 200: commitResponseSchema, ...settlementErrors },
      },
      // A checkout session's key and client secret come before its body's rules, as for register.
      preValidation: async (request, reply) => {
        const id = sessionIdOf(request.params);
        if (id === null) return; // the params' own 400 follows
        const solanaBody = opts.solanaCommit !== undefined && isSolanaCommitBody(request.body);
        const record = await sessions.get(id);
        if (record) await guardCheckout(request, record.session, checkout);
        // A Solana-origin session's sweep: its own body, checks and command (routes/solana.ts).
        if (solanaBody && opts.solanaCommit) return reply.send(await opts.solanaCommit(id, request.body));
        if (!record) return; // the handler's 404
        guarded.set(request, record);
      },
    },
    async (request) => {
      const { id } = request.params;
      const body = request.body;
      // The state the guard read, so the commit reads the session once.
      const session = (guarded.get(request) ?? (await sessionOrThrow(sessions, id))).session;
      // The signatures are checked for the burner the request names; whether it and its authorization
      // are the session's, and the merchant's pin, the session core decides (src/domain/commit-rules.ts).
      const auth = await chains.checks.authorization(body.eip7702_auth, body.burner);
      if (!auth.ok) throw gatewayError(auth.code, auth.message);
      // The signature that counts is the one for the chain the deposit is on; before a deposit there is none.
      const sourceChainId = session.source_chain_id;
      if (sourceChainId === null) throw gatewayError("not_detected");
      const signature = body.intent_sigs[String(sourceChainId)];
      if (signature === undefined) {
        throw gatewayError(
          "intent_signature_missing",
          `intent_sigs holds no signature for the session's source chain ${sourceChainId}`,
        );
      }
      const intent = intentFromWire(body.intent);
      const signed = await chains.checks.intent(intent, body.intent_sigs, body.burner);
      if (!signed.ok) throw gatewayError(signed.code, signed.message);
      // The commit leads to the sweep transaction: an RPC that does not answer is a 502 before anything is sent.
      await chainReads.probe(sourceChainId, body.burner);
      // A merchant's session: its pins as they are now, for the core's checkout rule.
      const merchantPins =
        session.merchant_id !== null && checkout ? await checkout.destinations(session.merchant_id) : null;

      const command = commitCommand(
        id,
        body,
        { signature, sourceChainId, feeBps: config.PLATFORM_FEE_BPS, merchantPins },
        now(),
      );
      const committed = acceptedSession(await commands.send(command));
      return {
        id,
        status: committed.status,
        // A retried commit answers the fee resolved the first time, whatever the setting is now.
        fee_bps: committed.fee_bps ?? config.PLATFORM_FEE_BPS,
        app_fee_bps: committed.app_fee_bps,
        app_fee_recipient: committed.app_fee_recipient,
      };
    },
  );

  app.get(
    "/sessions/:id/quote",
    {
      schema: {
        summary: "A slippage floor for the detected token to USDC swap on the source chain",
        params: sessionParamsSchema,
        response: { 200: quoteResponseSchema, ...settlementErrors },
      },
    },
    async (request, reply) => {
      const session = (await sessionOrThrow(sessions, request.params.id)).session;
      await guardCheckout(request, session, checkout);
      const { source_chain_id: chainId, detected_token: token, detected_amount: amount } = session;
      if (chainId === null || token === null || amount === null) throw gatewayError("not_detected");
      const quote = await chainReads.quote(chainId, token as Address, BigInt(amount));
      if (quote.kind === "usdc") throw gatewayError("quote_not_used");
      if (quote.kind === "no_route") throw gatewayError("no_swap_route");
      // A pool's price moves from block to block: never cache a quote.
      reply.header("cache-control", "no-store");
      return {
        estimated_out: quote.estimatedOut.toString(),
        suggested_min_out: suggestedMinOut(quote.estimatedOut, config.QUOTE_SLIPPAGE_BPS).toString(),
        chain_id: chainId,
        in_token: token,
        max_in: amount,
        slippage_bps: config.QUOTE_SLIPPAGE_BPS,
      };
    },
  );

  app.post(
    "/sessions/:id/standing-refund",
    {
      schema: {
        summary: "Attach a standing refund (one burner signature per source chain)",
        params: sessionParamsSchema,
        body: standingRefundSchema,
        response: { 200: standingRefundResponseSchema, ...settlementErrors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const refund = request.body;
      const session = (await sessionOrThrow(sessions, id)).session;
      const issuedAt = now();
      const checked = await chains.checks.standingRefund(
        refund,
        session.burner_address as Address,
        Math.floor(issuedAt / 1000),
      );
      if (!checked.ok) throw gatewayError(checked.code, checked.message);
      // A fresh command id: the core keeps a standing refund by content (the same one again changes
      // nothing), while a reused id would answer an older attach after another replaced it.
      const command: AttachStandingRefund = {
        type: "AttachStandingRefund",
        data: { sessionId: id, standingRefund: { ...refund, signatures: { ...refund.signatures } } },
        metadata: { commandId: newId(), issuedAt, replyTo: null },
      };
      const attached = acceptedSession(await commands.send(command));
      return { id, status: attached.status, standing_refund: refund };
    },
  );
};

export async function sessionOrThrow(sessions: SessionReadPort, id: string): Promise<SessionStateRecord> {
  const record = await sessions.get(id);
  if (record === null) throw gatewayError("session_not_found");
  return record;
}

/** The session an accepted command's reply carries; a refusal is thrown as its registered error. */
export function acceptedSession(reply: GatewayReply): SessionStateRecord["session"] {
  const refused = replyError(reply);
  if (refused) throw refused;
  const session = reply.session?.session;
  if (session === undefined) throw new Error("the owner accepted the command but sent no session");
  return session;
}

/** The Intent as the session core and the EIP-712 struct name its fields. */
export function intentFromWire(w: IntentWire): Intent {
  return {
    destChainId: w.dest_chain_id,
    destAddr: w.dest_addr,
    minOut: w.min_out,
    deadline: w.deadline,
    salt: w.salt,
    inToken: w.in_token,
    maxIn: w.max_in,
    appFeeBps: w.app_fee_bps,
    appFeeRecipient: w.app_fee_recipient,
  };
}

/** floor(estimated * (1 - bps / 10000)), in integers: no float ever touches an amount. */
export const suggestedMinOut = (estimated: bigint, slippageBps: number): bigint =>
  (estimated * BigInt(10_000 - slippageBps)) / 10_000n;

/**
 * Its id is derived from the session, the Intent, the signature, the burner and the authorization,
 * so a retried identical commit is the same command and the owner answers it as it answered the
 * first, while one naming another authorization is a new command the session core judges.
 */
export function commitCommand(
  sessionId: string,
  body: CommitBody,
  resolved: Pick<CommitIntent["data"], "signature" | "sourceChainId" | "feeBps" | "merchantPins">,
  issuedAt: number,
): CommitIntent {
  const { signature } = resolved;
  const wire = { ...body.intent, min_out: String(body.intent.min_out), max_in: String(body.intent.max_in) };
  return {
    type: "CommitIntent",
    data: {
      sessionId,
      intent: intentFromWire(body.intent),
      ...resolved,
      burner: body.burner,
      auth: { ...body.eip7702_auth },
    },
    metadata: {
      commandId: uuidFrom(
        "sessions.commit/command",
        `${sessionId}\n${canonicalJson({ wire, signature, burner: body.burner, auth: body.eip7702_auth })}`,
      ),
      issuedAt,
      replyTo: null,
    },
  };
}
