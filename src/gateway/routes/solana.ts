import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { zeroAddress } from "viem";
import { createSessionHeadersSchema, sessionIdOf, sessionParamsSchema } from "../../api/sessions.ts";
import {
  blockhashQuerySchema,
  blockhashResponseSchema,
  type CreateSolanaSessionBody,
  createSolanaSessionBodySchema,
  createSolanaSessionResponseSchema,
  type SolanaSweepTerms,
  solanaBurnerBodySchema,
  solanaBurnerMessage,
  solanaBurnerResponseSchema,
  solanaCommitBodySchema,
  solanaSessionMessage,
} from "../../api/solana.ts";
import { errorSchema } from "../../api/wire.ts";
import type { GatewayChains } from "../../chains/gateway-chains.ts";
import type { ServiceAddresses } from "../../chains/service-addresses.ts";
import type { Config } from "../../config.ts";
import type { CommitSolanaSweep, CreateSession, RegisterBurner } from "../../domain/commands.ts";
import { owedLegs } from "../../domain/solana-sweep.ts";
import type { Session } from "../../domain/types.ts";
import type { SessionView } from "../../domain/view.ts";
import type { GatewayReply } from "../../records/gateway-replies.ts";
import type { SessionStateRecord } from "../../records/session-state.ts";
import { gatewayError, replyError } from "../errors.ts";
import type { CommandPort, SessionReadPort, SolanaPort } from "../ports.ts";
import { canonicalJson, refuseServiceBurner, uuidFrom } from "./sessions.ts";
import { type CheckoutAccess, guardCheckout } from "./settlement.ts";

export interface SolanaRoutesOptions {
  config: Config;
  /** The Solana chain's side (its adapter's); the routes reach the chain only through it. */
  solana: SolanaPort;
  /** The configured chains: a destination on another chain is spelled as that chain's family spells it. */
  chains: Pick<GatewayChains, "parseAddress">;
  /** The service's own addresses: no burner may be one (src/chains/service-addresses.ts). */
  serviceAddresses: ServiceAddresses;
  commands: CommandPort;
  /** The read model: a checkout session's guard reads its merchant and client secret hash. */
  sessions: SessionReadPort;
  /** Merchant mode: a Solana checkout session's burner is registered with its pk_ and cs_ (as /register). */
  checkout?: CheckoutAccess | undefined;
  /** Merchant mode: a session's stealth destinations (Flow D), so its commit knows a sweep opens one. */
  stealthOf?: ((sessionId: string) => Promise<Pick<Session, "stealthDestinations"> | null>) | undefined;
  newId: () => string;
  /** Unix ms. */
  now: () => number;
}

const errors = Object.fromEntries(
  [400, 404, 409, 413, 415, 429, 500, 502, 503, 504].map((status) => [status, errorSchema]),
);

/**
 * POST /sessions/solana, POST /sessions/:id/solana-burner and GET /solana/blockhash (docs/SOLANA.md).
 * Shapes and signatures are checked here; what depends on the session's state (its family, its
 * status, whether a burner is registered) is the session actor's to decide.
 */
export const solanaRoutes: FastifyPluginAsyncZod<SolanaRoutesOptions> = async (app, opts) => {
  const { config, solana, chains, commands, newId, now } = opts;
  /** A session's record as its checkout guard read it: the burner's check needs its fee sink. */
  const records = new WeakMap<object, SessionStateRecord>();

  app.post(
    "/sessions/solana",
    {
      schema: {
        summary: "Register a Solana-origin deposit session",
        headers: createSessionHeadersSchema,
        body: createSolanaSessionBodySchema,
        response: { 200: createSolanaSessionResponseSchema, ...errors },
      },
    },
    async (request) => {
      const body = request.body;
      const fields = solanaSessionFields(body, solana, chains);
      if (fields.burner !== null) {
        refuseServiceBurner(opts.serviceAddresses, fields.burner);
        if (body.burner_signature === undefined) throw gatewayError("burner_signature_missing");
        if (!solana.verifyMessage(fields.burner, solanaSessionMessage(body), body.burner_signature))
          throw gatewayError(
            "burner_signature_invalid",
            "burner_signature: not the burner's ed25519 signature of deposit-settlement:solana-session:<destination_chain>:<destination_address>:<refund_address>",
          );
      } else if (body.burner_signature !== undefined) {
        throw gatewayError("invalid_request", "burner_signature: only with burner_address");
      }
      const issuedAt = now();
      const key = request.headers["idempotency-key"];
      const ids =
        key === undefined
          ? { sessionId: newId(), commandId: newId() }
          : {
              // As POST /sessions: the same key names the same session; the same body, the same command.
              sessionId: uuidFrom("sessions.solana/session", key),
              commandId: uuidFrom("sessions.solana/command", `${key}\n${canonicalJson(body)}`),
            };
      const command: CreateSession = {
        type: "CreateSession",
        data: {
          sessionId: ids.sessionId,
          flow: "p2p_request",
          merchantId: null,
          pinnedOnly: false,
          burner: fields.burner,
          auth: null,
          destAddress: fields.destAddress,
          destChainId: body.destination_chain,
          pinnedDestinations: [],
          clientSecretHash: null,
          // Anonymous: no app fee, so no Solana fee sink either (docs/SOLANA.md).
          appFeeBps: 0,
          appFeeRecipient: zeroAddress,
          appFeeRecipientSol: null,
          standingRefund: null,
          stealth: null,
          stealthDestinations: null,
          expiresAt: Math.floor(issuedAt / 1000) + config.SESSION_TTL_SECONDS,
          expectedAmount: null,
          originChainId: solana.chainId,
          refundAddress: fields.refundAddress,
        },
        metadata: { commandId: ids.commandId, issuedAt, replyTo: null },
      };
      const session = acceptedSession(await commands.send(command), "CreateSession");
      return {
        id: session.id,
        status: session.status,
        expires_at: session.expires_at,
        sweep: solanaSweepTerms(solana, config.PLATFORM_FEE_BPS, session),
      };
    },
  );

  app.post(
    "/sessions/:id/solana-burner",
    {
      schema: {
        summary:
          "Register the payer's Solana burner on a Solana-origin session (once, while pending); the same burner may add its bounce setup, and replace it with a newer one until it is relayed, until the commit",
        params: sessionParamsSchema,
        body: solanaBurnerBodySchema,
        response: { 200: solanaBurnerResponseSchema, ...errors },
      },
      // A checkout session's key and client secret come first, as for POST /sessions/:id/register.
      preValidation: async (request) => {
        const id = sessionIdOf(request.params);
        const record = id === null ? null : await opts.sessions.get(id);
        if (record) {
          await guardCheckout(request, record.session, opts.checkout);
          records.set(request, record);
        }
      },
    },
    async (request) => {
      const { id } = request.params;
      const burner = solana.parseAddress(request.body.burner_address);
      if (burner === null) throw gatewayError("invalid_request", "burner_address: not a Solana public key");
      // A merchant's checkout names its app fee's Solana sink: that is no burner either.
      refuseServiceBurner(opts.serviceAddresses, burner, [
        records.get(request)?.session.app_fee_recipient_sol ?? null,
      ]);
      if (!solana.verifyMessage(burner, solanaBurnerMessage(id), request.body.signature)) {
        throw gatewayError(
          "burner_signature_invalid",
          "signature: not the burner's ed25519 signature of deposit-settlement:solana-burner:<session id>",
        );
      }
      const wire = request.body.bounce_setup;
      let bounceSetup: RegisterBurner["data"]["bounceSetup"] = null;
      if (wire !== undefined) {
        const checked = await solana.checkBounceSetup(wire, { sessionId: id, burner });
        if (!checked.ok) throw gatewayError("invalid_bounce_setup", `bounce_setup: ${checked.reason}`);
        bounceSetup = { refundTo: checked.refundTo, transaction: wire };
      }
      const command: RegisterBurner = {
        type: "RegisterBurner",
        data: { sessionId: id, burner, auth: null, standingRefund: null, bounceSetup },
        metadata: {
          // The same registration retried is the same command: answered, not refused as a second one.
          commandId: uuidFrom("sessions.solana-burner/command", `${id}\n${burner}\n${wire ?? ""}`),
          issuedAt: now(),
          replyTo: null,
        },
      };
      const session = acceptedSession(await commands.send(command), "RegisterBurner");
      return { id: session.id, status: session.status };
    },
  );

  app.get(
    "/solana/blockhash",
    {
      schema: {
        summary: "The Solana chain's newest blockhash, for the transaction the payer's client signs",
        querystring: blockhashQuerySchema,
        response: { 200: blockhashResponseSchema, ...errors },
      },
    },
    async (request, reply) => {
      const chainId = request.query.chain_id;
      if (chainId !== undefined && chainId !== solana.chainId)
        throw gatewayError("chain_unsupported", `chain_id: ${chainId} is not a configured Solana chain`);
      // A blockhash is good for ~60 s: no cache may hand out an old one.
      reply.header("cache-control", "no-store");
      return solana.latestBlockhash();
    },
  );
};

/**
 * Whether a session's sweep pays its Flow D stealth address on this Solana chain (docs/STEALTH.md),
 * which it then opens: the terms said so (`open_sweep_to`), and the sweep is checked with it.
 */
async function paysStealthHere(
  opts: Pick<SolanaRoutesOptions, "solana" | "stealthOf">,
  id: string,
  s: Pick<SessionView, "dest_address" | "dest_chain_id">,
): Promise<boolean> {
  if (opts.stealthOf === undefined || s.dest_chain_id !== opts.solana.chainId) return false;
  const destinations = (await opts.stealthOf(id))?.stealthDestinations ?? [];
  return destinations.some((d) => d.stealthAddress === s.dest_address);
}

/**
 * What the payer's client needs to build the sweep of a Solana-origin session (docs/SOLANA.md, "The
 * sweep"): the anonymous creation's answer and a Solana checkout's (POST /v1/payment_sessions).
 */
export function solanaSweepTerms(
  solana: Pick<SolanaPort, "chainId" | "usdcMint" | "feePayer" | "vault">,
  feeBps: number,
  session: Pick<SessionView, "dest_address" | "dest_chain_id" | "app_fee_bps" | "app_fee_recipient_sol">,
  stealth = false,
): SolanaSweepTerms {
  const here = session.dest_chain_id === solana.chainId;
  return {
    chain_id: solana.chainId,
    usdc_mint: solana.usdcMint,
    fee_payer: solana.feePayer,
    fee_bps: feeBps,
    app_fee_bps: session.app_fee_bps,
    app_fee_recipient_sol: session.app_fee_recipient_sol,
    // A destination on another chain is paid by the fast fill out of the vault.
    sweep_to: here ? (session.dest_address as string) : solana.vault,
    // A Flow D session's destination here is its fresh stealth address: the sweep opens its account.
    open_sweep_to: stealth && here,
  };
}

/** The session's addresses in their canonical spellings, or a 400 naming the field. */
function solanaSessionFields(
  body: CreateSolanaSessionBody,
  solana: SolanaPort,
  chains: Pick<GatewayChains, "parseAddress">,
): { destAddress: string; burner: string | null; refundAddress: string | null } {
  const base58 = (field: string, raw: string | undefined): string | null => {
    if (raw === undefined) return null;
    const parsed = solana.parseAddress(raw);
    if (parsed === null) throw gatewayError("invalid_request", `${field}: not a Solana public key`);
    return parsed;
  };
  let destAddress: string;
  if (body.destination_chain === solana.chainId) {
    destAddress = base58("destination_address", body.destination_address) as string;
  } else if (solana.reaches.includes(body.destination_chain)) {
    const parsed = chains.parseAddress(body.destination_chain, body.destination_address);
    if (parsed === null)
      throw gatewayError(
        "invalid_request",
        `destination_address: not an address of chain ${body.destination_chain}`,
      );
    destAddress = parsed;
  } else {
    throw gatewayError(
      "chain_unsupported",
      `destination_chain: ${body.destination_chain} is not a configured chain`,
    );
  }
  const burner = base58("burner_address", body.burner_address);
  const refundAddress = base58("refund_address", body.refund_address);
  if (burner !== null && (burner === destAddress || burner === refundAddress))
    throw gatewayError(
      "invalid_request",
      "burner_address: the burner cannot also be the destination or refund address",
    );
  return { destAddress, burner, refundAddress };
}

function acceptedSession(reply: GatewayReply, what: string) {
  const refused = replyError(reply);
  if (refused) throw refused;
  const session = reply.session?.session;
  if (session === undefined) throw new Error(`the owner accepted ${what} but sent no session`);
  return session;
}

/**
 * POST /sessions/:id/commit with a Solana body (docs/SOLANA.md, "The sweep"): the transaction must be
 * exactly the sweep the session owes as the read model shows it, signed by its burner; the session's
 * actor judges the same legs against its own state before anything is sent. Answers like the EVM commit.
 */
export function solanaCommit(opts: SolanaRoutesOptions) {
  const { config, solana, commands, sessions, now } = opts;
  return async (id: string, rawBody: unknown) => {
    const parsed = solanaCommitBodySchema.safeParse(rawBody);
    if (!parsed.success)
      throw gatewayError("invalid_request", `body: ${parsed.error.issues[0]?.message ?? "invalid"}`);
    const { transaction } = parsed.data;
    const record = await sessions.get(id);
    if (record === null) throw gatewayError("session_not_found");
    const s = record.session;
    const burner = s.burner_address === null ? null : solana.parseAddress(s.burner_address);
    if (s.source_chain_id !== null && s.source_chain_id !== solana.chainId)
      throw gatewayError("not_solana_session");
    if (burner === null) throw gatewayError("not_solana_session");
    if (s.detected_token === null || s.detected_amount === null) throw gatewayError("not_detected");
    // The app fee goes to the session's Solana sink or the sweep is not checked at all (docs/SOLANA.md).
    if (s.app_fee_bps > 0 && s.app_fee_recipient_sol === null) throw gatewayError("app_fee_sink_missing");
    const feeBps = config.PLATFORM_FEE_BPS;
    const { legs } = owedLegs(
      {
        appFeeBps: s.app_fee_bps,
        appFeeRecipientSol: s.app_fee_recipient_sol,
        destAddress: s.dest_address,
        destChainId: s.dest_chain_id,
        originChainId: solana.chainId,
      },
      { amount: BigInt(s.detected_amount), feeBps, feeRecipient: solana.feePayer, vault: solana.vault },
    );
    const token = s.detected_token;
    const openFirstLeg = await paysStealthHere(opts, id, s);
    const checked = await solana.checkSweep(transaction, { burner, token, legs, openFirstLeg });
    if (!checked.ok) throw gatewayError("sweep_invalid", `transaction: ${checked.reason}`);
    const command: CommitSolanaSweep = {
      type: "CommitSolanaSweep",
      data: {
        sessionId: id,
        transaction,
        burner,
        token,
        legs,
        feeBps,
        feeRecipient: solana.feePayer,
        vault: solana.vault,
      },
      // The same transaction retried is the same command: answered, never relayed twice.
      metadata: {
        commandId: uuidFrom("sessions.solana-commit/command", `${id}\n${transaction}`),
        issuedAt: now(),
        replyTo: null,
      },
    };
    const session = acceptedSession(await commands.send(command), "CommitSolanaSweep");
    return {
      id,
      status: session.status,
      fee_bps: session.fee_bps ?? feeBps,
      app_fee_bps: session.app_fee_bps,
      app_fee_recipient: session.app_fee_recipient,
    };
  };
}
