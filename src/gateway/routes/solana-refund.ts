import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { sessionParamsSchema } from "../../api/sessions.ts";
import { solanaRefundBodySchema, solanaRefundResponseSchema } from "../../api/solana.ts";
import type { Config } from "../../config.ts";
import type { RequestSolanaRefund } from "../../domain/commands.ts";
import { solanaRefundId } from "../../domain/solana-refund.ts";
import { gatewayError, replyError } from "../errors.ts";
import type { CommandPort, LiveUpdatesPort, SessionReadPort, SolanaPort } from "../ports.ts";
import { awaitRefundTx } from "./refunds.ts";
import { uuidFrom } from "./sessions.ts";
import { settlementErrors } from "./settlement.ts";

/** The native mint: how a SOL refund names its token (docs/SOLANA.md). */
const NATIVE_MINT = "So11111111111111111111111111111111111111112";

export interface SolanaRefundRoutesOptions {
  config: Config;
  solana: SolanaPort;
  commands: CommandPort;
  sessions: SessionReadPort;
  live: LiveUpdatesPort;
  /** Unix ms. */
  now: () => number;
}

/**
 * POST /sessions/:id/solana-refund (docs/SOLANA.md, "The payer's refund"): the payer's client, which
 * holds the burner key, signs the transfer of the burner's whole balance of one asset to a wallet of
 * its choosing; the relayer pays the fee. The gateway checks the transaction against the chain (the
 * whole balance, nothing else, a valid blockhash, the recipient's USDC account) and the session core
 * whether the relayer pays for it (the session ended, nothing of the asset in flight, at most
 * MAX_SOLANA_REFUNDS). The route answers once the executor's relay is confirmed, like /refund.
 */
export const solanaRefundRoutes: FastifyPluginAsyncZod<SolanaRefundRoutesOptions> = async (app, opts) => {
  const { config, solana, commands, sessions, live, now } = opts;
  app.post(
    "/sessions/:id/solana-refund",
    {
      schema: {
        summary: "Relay the payer's burner-signed refund of a Solana burner's whole balance of one asset",
        params: sessionParamsSchema,
        body: solanaRefundBodySchema,
        response: { 200: solanaRefundResponseSchema, ...settlementErrors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const body = request.body;
      const record = await sessions.get(id);
      if (record === null) throw gatewayError("session_not_found");
      const s = record.session;
      const burner = s.burner_address === null ? null : solana.parseAddress(s.burner_address);
      // A Solana session has a base58 burner; its source chain is named only once a deposit is accepted,
      // so a session with none yet (or only unsupported ones) is judged by the session core's rulebook.
      if ((s.source_chain_id !== null && s.source_chain_id !== solana.chainId) || burner === null)
        throw gatewayError("not_solana_session");
      const to = solana.parseAddress(body.to);
      if (to === null) throw gatewayError("invalid_request", "to: not a Solana public key");
      if (to === burner || to === solana.feePayer)
        throw gatewayError(
          "invalid_request",
          "to: the refund goes to the payer's wallet, not the burner or the relayer",
        );
      const token = solana.parseAddress(body.token);
      if (token !== solana.usdcMint && token !== NATIVE_MINT)
        throw gatewayError(
          "invalid_request",
          `token: the USDC mint ${solana.usdcMint} or ${NATIVE_MINT} (SOL)`,
        );
      // The same signed refund again (a retried request): its record answers, whatever the balance is now.
      const signature = solana.burnerSignature(body.transaction, burner);
      const recordIdOf = (sig: string) => solanaRefundId(id, sig);
      const known = signature && s.refunds.find((r) => r.id === recordIdOf(signature));
      const wait = (recordId: string) =>
        awaitRefundTx({ sessions, live, timeoutMs: config.REFUND_WAIT_MS }, id, (state) =>
          state.session.refunds.find((r) => r.id === recordId),
        );
      const answer = (done: Awaited<ReturnType<typeof wait>>) => ({
        id,
        signature: done.tx_hash,
        to: done.to,
        token: done.token,
        amount: done.amount,
      });
      if (known) return answer(await wait(known.id));
      const checked = await solana.checkRefund(body.transaction, { burner, token, to });
      if (!checked.ok) {
        if (checked.empty) throw gatewayError("nothing_to_refund", checked.reason);
        throw gatewayError("solana_refund_invalid", `transaction: ${checked.reason}`);
      }
      const command: RequestSolanaRefund = {
        type: "RequestSolanaRefund",
        data: {
          sessionId: id,
          transaction: body.transaction,
          signature: checked.signature,
          burner,
          token,
          to,
          amount: checked.amount,
        },
        // The same transaction retried is the same command: answered, never relayed twice.
        metadata: {
          commandId: uuidFrom("sessions.solana-refund/command", `${id}\n${body.transaction}`),
          issuedAt: now(),
          replyTo: null,
        },
      };
      const refused = replyError(await commands.send(command));
      if (refused) throw refused;
      return answer(await wait(recordIdOf(checked.signature)));
    },
  );
};
