import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { zeroAddress } from "viem";
import type { Config } from "../../config.ts";
import type { CreateSession, RegisterBurner } from "../../domain/commands.ts";
import type { GatewayReply } from "../../records/gateway-replies.ts";
import { gatewayError, replyError } from "../errors.ts";
import type { CommandPort, SolanaPort } from "../ports.ts";
import { addressSchema, createSessionHeadersSchema, errorSchema, sessionParamsSchema } from "../schemas.ts";
import {
  blockhashQuerySchema,
  blockhashResponseSchema,
  type CreateSolanaSessionBody,
  createSolanaSessionBodySchema,
  createSolanaSessionResponseSchema,
  solanaBurnerBodySchema,
  solanaBurnerMessage,
  solanaBurnerResponseSchema,
} from "../solana-schemas.ts";
import { canonicalJson, uuidFrom } from "./sessions.ts";

export interface SolanaRoutesOptions {
  config: Config;
  /** The Solana chain's side (its adapter's); the routes reach the chain only through it. */
  solana: SolanaPort;
  /** The configured EVM chains' ids: the other destinations a Solana deposit can settle to (fast fill). */
  evmChainIds: readonly number[];
  commands: CommandPort;
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
  const { config, solana, evmChainIds, commands, newId, now } = opts;

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
      const fields = solanaSessionFields(body, solana, evmChainIds);
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
        sweep: {
          chain_id: solana.chainId,
          usdc_mint: solana.usdcMint,
          fee_payer: solana.feePayer,
          fee_bps: config.PLATFORM_FEE_BPS,
          app_fee_bps: command.data.appFeeBps,
          app_fee_recipient_sol: command.data.appFeeRecipientSol,
          sweep_to: body.destination_chain === solana.chainId ? fields.destAddress : solana.vault,
        },
      };
    },
  );

  app.post(
    "/sessions/:id/solana-burner",
    {
      schema: {
        summary: "Register the payer's Solana burner on a Solana-origin session (once, while pending)",
        params: sessionParamsSchema,
        body: solanaBurnerBodySchema,
        response: { 200: solanaBurnerResponseSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const burner = solana.parseAddress(request.body.burner_address);
      if (burner === null) throw gatewayError("invalid_request", "burner_address: not a Solana public key");
      if (!solana.verifyMessage(burner, solanaBurnerMessage(id), request.body.signature)) {
        throw gatewayError(
          "burner_signature_invalid",
          "signature: not the burner's ed25519 signature of deposit-settlement:solana-burner:<session id>",
        );
      }
      const command: RegisterBurner = {
        type: "RegisterBurner",
        data: { sessionId: id, burner, auth: null, standingRefund: null },
        metadata: {
          // The same registration retried is the same command: answered, not refused as a second one.
          commandId: uuidFrom("sessions.solana-burner/command", `${id}\n${burner}`),
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

/** The session's addresses in their canonical spellings, or a 400 naming the field. */
function solanaSessionFields(
  body: CreateSolanaSessionBody,
  solana: SolanaPort,
  evmChainIds: readonly number[],
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
  } else if (evmChainIds.includes(body.destination_chain)) {
    const evm = addressSchema.safeParse(body.destination_address);
    if (!evm.success)
      throw gatewayError("invalid_request", "destination_address: must be a 0x address on an EVM chain");
    destAddress = evm.data;
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
