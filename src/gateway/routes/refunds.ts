import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import { sessionParamsSchema } from "../../api/sessions.ts";
import {
  refundAllBodySchema,
  refundAllResponseSchema,
  refundBodySchema,
  refundResponseSchema,
} from "../../api/settlement.ts";
import type { ChainBalance, RequestRefund, RequestRefundAll } from "../../domain/commands.ts";
import { refundCommandId } from "../../domain/refunds.ts";
import { type Address, NATIVE_TOKEN, sameId } from "../../domain/types.ts";
import type { SessionStateRecord } from "../../records/session-state.ts";
import { GatewayError, gatewayError } from "../errors.ts";
import type { LiveUpdatesPort, SessionReadPort } from "../ports.ts";
import {
  acceptedSession,
  type SettlementRoutesOptions,
  sessionOrThrow,
  settlementErrors,
} from "./settlement.ts";

type RefundView = SessionStateRecord["session"]["refunds"][number];

/**
 * POST /sessions/:id/refund and /refund-all. The executor submits the transaction; the route waits
 * (up to REFUND_WAIT_MS) until the refund's record in the read model carries its tx_hash, and answers
 * with it. A refund the executor gave up on is a 502; one not yet broadcast by then, a 504 that a
 * retry of the same request resolves (it joins the same refund record).
 *
 * The relayer pays for every refund, so the session core judges each on what the chain shows: the
 * route reads the burner's balance of the token and the refund's dust floor (one RPC answer each,
 * a 502 when the RPC does not answer) and puts them on the command (src/domain/relayer-work.ts).
 */
export const refundRoutes: FastifyPluginAsyncZod<SettlementRoutesOptions> = async (app, opts) => {
  const { config, chains, commands, sessions, live, chainReads, newId, now } = opts;
  const configured = (chainId: number) => {
    if (!chains.has(chainId)) {
      throw gatewayError("chain_unsupported", `chain_id ${chainId} is not a configured chain`);
    }
  };
  /**
   * The refund's transaction hash. When the executor gave the refund up, the chain is asked again:
   * a burner that no longer holds what the refund would move (the balance left between the check
   * and the send, or the payer ran the same signed refund on chain first) is the chain's answer,
   * a 409 that no retry changes; otherwise the 502 stands (the relayer or its RPC did not get it
   * through).
   */
  const awaitTx = async (
    sessionId: string,
    pick: (s: SessionStateRecord) => RefundView | undefined,
    burner: Address,
  ) => {
    try {
      return await awaitRefundTx({ sessions, live, timeoutMs: config.REFUND_WAIT_MS }, sessionId, pick);
    } catch (err) {
      const gaveUp = err instanceof GatewayError && err.code === "refund_failed";
      const state = gaveUp ? await sessions.get(sessionId).catch(() => null) : null;
      const record = state ? pick(state) : undefined;
      if (record === undefined) throw err;
      // An RPC that does not answer leaves the 502 as it is; a token that is no ERC-20 holds nothing.
      const probed = await chainReads.probe(record.chain_id, burner, record.token as Address).then(
        (b) => b ?? 0n,
        () => undefined,
      );
      const needed = record.amount === "full" ? 1n : BigInt(record.amount);
      if (probed === undefined || probed >= needed) throw err;
      throw gatewayError(
        "nothing_to_refund",
        `the refund was not sent: the burner now holds ${probed} of ${record.token} on chain ${record.chain_id}, less than it would move`,
      );
    }
  };
  const fixedFloor = config.REFUND_DUST_FLOOR === "gas" ? null : BigInt(config.REFUND_DUST_FLOOR);
  const refundGas = BigInt(config.REFUND_GAS);
  const unpricedFloor = BigInt(config.REFUND_DUST_MIN);
  /** The burner's balance of the token (none when it is no token) and the refund's dust floor. */
  const chainBalance = async (chainId: number, burner: Address, token: Address): Promise<ChainBalance> => {
    const [balance, dustFloor] = await Promise.all([
      chainReads.probe(chainId, burner, token),
      fixedFloor ?? chainReads.gasValue(chainId, token, refundGas).then((v) => v ?? unpricedFloor),
    ]);
    return { balance: balance ?? 0n, dustFloor };
  };

  app.post(
    "/sessions/:id/refund",
    {
      schema: {
        summary: "Move a stranded balance back under a burner-signed Refund",
        params: sessionParamsSchema,
        body: refundBodySchema,
        response: { 200: refundResponseSchema, ...settlementErrors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const body = request.body;
      const burner = (await sessionOrThrow(sessions, id)).session.burner_address as Address;
      configured(body.chain_id);
      const issuedAt = now();
      if (body.deadline <= Math.floor(issuedAt / 1000)) throw gatewayError("refund_expired");
      const { token, to, amount, salt, signature } = body;
      const message = { token, to, amount, deadline: BigInt(body.deadline), salt };
      const signed = await chains.checks.refund(message, body.chain_id, signature, burner);
      if (!signed.ok) throw gatewayError(signed.code, signed.message);
      const onChain = await chainBalance(body.chain_id, burner, token);

      const command: RequestRefund = {
        type: "RequestRefund",
        data: {
          sessionId: id,
          chainId: body.chain_id,
          onChain,
          token,
          to,
          amount,
          deadline: body.deadline,
          salt,
          signature,
        },
        metadata: { commandId: newId(), issuedAt, replyTo: null },
      };
      const recordId = refundCommandId(id, body.chain_id, salt);
      const byId = (refunds: readonly RefundView[]) => refunds.find((r) => r.id === recordId);
      const requested = byId(acceptedSession(await commands.send(command)).refunds);
      if (requested === undefined)
        throw new Error(`the owner accepted refund ${recordId} but holds no record of it`);
      // The core keeps the first refund of a salt (the delegate spends each salt once).
      if (
        !sameId(requested.to, to) ||
        !sameId(requested.token, token) ||
        requested.amount !== amount.toString()
      ) {
        throw gatewayError("refund_salt_used");
      }
      const record = await awaitTx(id, (s) => byId(s.session.refunds), burner);
      return { tx_hash: record.tx_hash, to: record.to, token: record.token };
    },
  );

  app.post(
    "/sessions/:id/refund-all",
    {
      schema: {
        summary: "Run the stored standing refund for one asset (expired or failed sessions)",
        params: sessionParamsSchema,
        body: refundAllBodySchema,
        response: { 200: refundAllResponseSchema, ...settlementErrors },
      },
    },
    async (request) => {
      const { id } = request.params;
      const { chain_id: chainId } = request.body;
      const token = request.body.token === "native" ? NATIVE_TOKEN : request.body.token;
      const { session } = await sessionOrThrow(sessions, id);
      const burner = session.burner_address as Address;
      configured(chainId);
      const onChain = await chainBalance(chainId, burner, token);
      const answer = (record: RefundView & { tx_hash: string }) => ({
        tx_hash: record.tx_hash,
        refund_address: record.to,
        token: request.body.token,
        amount: "full" as const,
      });
      // Nothing left of the asset: the newest refund of it (the automatic bounce, an earlier call)
      // took it, or is taking it. Its transaction is the answer; a new one would only revert
      // (NothingToMove) and leave a failed record for each retry of a 502.
      const last = newestRefundAll(session.refunds, chainId, token);
      if (onChain.balance === 0n && last !== undefined && last.status !== "failed") {
        return answer(await awaitTx(id, (s) => s.session.refunds.find((r) => r.id === last.id), burner));
      }
      // Anything else is the owner's to judge: nothing there, dust, no new deposit since the last
      // refund-all, a session that does not qualify (src/domain/refunds.ts, decideRefundAll).
      const command: RequestRefundAll = {
        type: "RequestRefundAll",
        data: { sessionId: id, chainId, token, onChain },
        metadata: { commandId: newId(), issuedAt: now(), replyTo: null },
      };
      // Concurrent calls join the refund in flight for this asset: the newest record is everyone's.
      const requested = newestRefundAll(
        acceptedSession(await commands.send(command)).refunds,
        chainId,
        token,
      );
      if (requested === undefined)
        throw new Error("the owner accepted a refund-all but holds no record of it");
      return answer(await awaitTx(id, (s) => s.session.refunds.find((r) => r.id === requested.id), burner));
    },
  );
};

export function newestRefundAll(
  refunds: readonly RefundView[],
  chainId: number,
  token: Address,
): RefundView | undefined {
  return refunds.findLast((r) => r.kind === "refund_all" && r.chain_id === chainId && sameId(r.token, token));
}

/**
 * Resolves with the refund record once it has a tx_hash; rejects with refund_failed when the
 * executor gave up on it, and with refund_pending after `timeoutMs`. New states arrive from
 * session.state; the read model is read at the start and every second as well, in case this
 * gateway's consumer missed one.
 */
export function awaitRefundTx(
  deps: { sessions: SessionReadPort; live: LiveUpdatesPort; timeoutMs: number },
  sessionId: string,
  pick: (state: SessionStateRecord) => RefundView | undefined,
): Promise<RefundView & { tx_hash: string }> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      unsubscribe();
      clearInterval(poll);
      clearTimeout(timer);
      settle();
    };
    const consider = (state: SessionStateRecord | null) => {
      const record = state ? pick(state) : undefined;
      if (record === undefined) return;
      if (record.status === "failed") {
        const why = record.error_message
          ? `the refund transaction failed: ${record.error_message}`
          : undefined;
        finish(() => reject(gatewayError("refund_failed", why)));
      } else if (record.tx_hash !== null) {
        const sent = { ...record, tx_hash: record.tx_hash };
        finish(() => resolve(sent));
      }
    };
    const read = () => deps.sessions.get(sessionId, { cached: true }).then(consider, () => {});
    const unsubscribe = deps.live.subscribe(sessionId, consider);
    const poll = setInterval(read, 1000);
    const timer = setTimeout(() => finish(() => reject(gatewayError("refund_pending"))), deps.timeoutMs);
    void read();
  });
}
