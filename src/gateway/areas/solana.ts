import type { FastifyPluginAsync } from "fastify";
import type { LiveUpdatesPort } from "../ports.ts";
import { type SolanaRoutesOptions, solanaRoutes } from "../routes/solana.ts";
import { solanaRefundRoutes } from "../routes/solana-refund.ts";

export type SolanaAreaOptions = SolanaRoutesOptions & { live: LiveUpdatesPort };

/**
 * The Solana chain's own routes (docs/SOLANA.md): a Solana-origin session, its burner's registration,
 * a blockhash, and the payer's refund. They exist only when a Solana chain is configured; its commit
 * goes through the payer's POST /sessions/:id/commit (solanaCommit).
 */
export const solanaArea: FastifyPluginAsync<SolanaAreaOptions> = async (app, opts) => {
  await app.register(solanaRoutes, opts);
  await app.register(solanaRefundRoutes, opts);
};
