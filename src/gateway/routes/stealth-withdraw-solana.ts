import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import {
  solanaWithdrawBodySchema,
  solanaWithdrawPrepareBodySchema,
  solanaWithdrawPreparedSchema,
  solanaWithdrawResponseSchema,
} from "../../api/stealth-withdraw.ts";
import { errorSchema } from "../../api/wire.ts";
import {
  type SolanaStealthWithdrawals,
  SolanaWithdrawRefused,
} from "../../chains/solana-stealth-withdrawals.ts";
import { gatewayError } from "../errors.ts";
import { requirePaidStealthAddress, type StealthRegistry } from "../stealth-registry.ts";
import { requireStealth } from "./stealth-meta.ts";

export interface SolanaWithdrawRouteOptions {
  withdrawals: SolanaStealthWithdrawals;
  /**
   * The addresses the relayer pays for: those the service derived for a Flow D session swept to them
   * (src/gateway/stealth-registry.ts). Absent (merchant mode off: no Flow D session exists): none.
   */
  registry?: Pick<StealthRegistry, "paidTo"> | undefined;
  enabled: boolean;
  /** Every configured chain id: stealth is refused on a service that configures a mainnet (the gate). */
  chainIds: readonly number[];
}

const errors = Object.fromEntries([400, 403, 404, 409, 502, 503].map((s) => [s, errorSchema]));

/**
 * POST /stealth/withdraw/solana/prepare and POST /stealth/withdraw/solana (docs/STEALTH.md, "Withdrawal on
 * Solana"): the recipient of a Solana stealth payment holds the stealth scalar and no SOL there, so the
 * service builds the full-balance withdrawal with the relayer as fee payer, the recipient signs it with
 * the stealth scalar (raw-scalar EdDSA), and the service checks it is the prepared one, co-signs and relays.
 */
export const solanaStealthWithdrawRoutes: FastifyPluginAsyncZod<SolanaWithdrawRouteOptions> = async (
  app,
  opts,
) => {
  const { withdrawals } = opts;
  const parse = async (body: {
    chain_id?: number | undefined;
    stealth_address: string;
    destination: string;
  }) => {
    requireStealth(opts.enabled, [body.chain_id ?? withdrawals.chainId, ...opts.chainIds]);
    if (body.chain_id !== undefined && body.chain_id !== withdrawals.chainId)
      throw gatewayError("chain_unsupported", `chain_id: the Solana chain here is ${withdrawals.chainId}`);
    const stealthAddress = withdrawals.parseAddress(body.stealth_address);
    if (stealthAddress === null)
      throw gatewayError("invalid_request", "stealth_address: not a Solana public key");
    const destination = withdrawals.parseAddress(body.destination);
    if (destination === null) throw gatewayError("invalid_request", "destination: not a Solana public key");
    if (destination === stealthAddress)
      throw gatewayError("invalid_request", "destination: the stealth address itself");
    // Before anything is read or built: the relayer pays only for the service's own paid addresses.
    await requirePaidStealthAddress(opts.registry, stealthAddress);
    return { stealthAddress, destination };
  };
  const refusal = (err: unknown): never => {
    if (err instanceof SolanaWithdrawRefused) throw gatewayError(err.code, err.shortMessage);
    throw err;
  };

  app.post(
    "/stealth/withdraw/solana/prepare",
    {
      schema: {
        summary: "Build the unsigned withdrawal of a Solana stealth address's whole USDC balance",
        body: solanaWithdrawPrepareBodySchema,
        response: { 200: solanaWithdrawPreparedSchema, ...errors },
      },
    },
    async (request) => {
      const req = await parse(request.body);
      const prepared = await withdrawals.prepare(req).catch(refusal);
      return {
        chain_id: withdrawals.chainId,
        stealth_address: req.stealthAddress,
        destination: req.destination,
        token: prepared.mint,
        amount: String(prepared.amount),
        fee_payer: prepared.feePayer,
        blockhash: prepared.blockhash,
        last_valid_block_height: prepared.lastValidBlockHeight,
        transaction: prepared.transaction,
      };
    },
  );

  app.post(
    "/stealth/withdraw/solana",
    {
      schema: {
        summary: "Check a stealth-signed Solana withdrawal, co-sign it as fee payer and relay it",
        body: solanaWithdrawBodySchema,
        response: { 200: solanaWithdrawResponseSchema, ...errors },
      },
    },
    async (request) => {
      const req = await parse(request.body);
      const sent = await withdrawals
        .withdraw({ ...req, transaction: request.body.transaction })
        .catch(refusal);
      return {
        chain_id: withdrawals.chainId,
        signature: sent.signature,
        destination: req.destination,
        amount: String(sent.amount),
      };
    },
  );
};
