import type { FastifyPluginAsyncZod } from "fastify-type-provider-zod";
import type { Address, Hex } from "viem";
import { stealthWithdrawBodySchema, stealthWithdrawResponseSchema } from "../../api/stealth-withdraw.ts";
import { errorSchema } from "../../api/wire.ts";
import { type StealthWithdrawals, WithdrawalRefused } from "../../chains/stealth-withdrawals.ts";
import { gatewayError } from "../errors.ts";
import { requirePaidStealthAddress, type StealthRegistry } from "../stealth-registry.ts";
import { requireStealth } from "./stealth-meta.ts";

export interface StealthWithdrawRouteOptions {
  withdrawals: StealthWithdrawals;
  /**
   * The addresses the relayer pays for: those the service derived for a Flow D session swept to them
   * (src/gateway/stealth-registry.ts). Absent (merchant mode off: no Flow D session exists): none.
   */
  registry?: Pick<StealthRegistry, "paidTo"> | undefined;
  enabled: boolean;
  /** Every configured chain id: stealth is refused on a service that configures a mainnet (the gate). */
  chainIds: readonly number[];
}

/**
 * POST /stealth/withdraw (docs/STEALTH.md, "Withdrawal on EVM"): the recipient of a stealth payment has
 * the stealth key and no ETH there, so it signs an EIP-3009 authorization and a Withdraw pinning the
 * destination, the relay fee and the relayer (paid the fee, the only sender the relay accepts); the relayer
 * checks both off-chain, the fee bound, the balance and a simulation, then sends StealthRelay.withdraw and
 * answers once it is mined.
 */
export const stealthWithdrawRoutes: FastifyPluginAsyncZod<StealthWithdrawRouteOptions> = async (
  app,
  opts,
) => {
  app.post(
    "/stealth/withdraw",
    {
      schema: {
        summary:
          "Relay a gasless withdrawal from an EVM stealth address (EIP-3009 authorization + signed Withdraw)",
        body: stealthWithdrawBodySchema,
        response: {
          200: stealthWithdrawResponseSchema,
          ...Object.fromEntries([400, 403, 404, 409, 502, 503].map((s) => [s, errorSchema])),
        },
      },
    },
    async (request) => {
      const body = request.body;
      requireStealth(opts.enabled, [body.chain_id, ...opts.chainIds]);
      if (!opts.withdrawals.chainIds.includes(body.chain_id)) throw gatewayError("chain_unsupported");
      // Before any signature or chain read: the relayer acts only for the service's own paid addresses.
      await requirePaidStealthAddress(opts.registry, body.stealth_address);
      try {
        const sent = await opts.withdrawals.withdraw({
          chainId: body.chain_id,
          stealthAddress: body.stealth_address as Address,
          token: body.token as Address,
          destination: body.destination as Address,
          fee: body.fee,
          relayer: body.relayer as Address,
          deadline: BigInt(body.deadline),
          authorization: {
            value: body.authorization.value,
            validAfter: BigInt(body.authorization.valid_after),
            validBefore: BigInt(body.authorization.valid_before),
            nonce: body.authorization.nonce as Hex,
            signature: body.authorization.signature as Hex,
          },
          withdrawSignature: body.withdraw_signature as Hex,
        });
        return {
          tx_hash: sent.txHash,
          destination: sent.destination.toLowerCase(),
          amount: String(sent.amount),
          fee: String(sent.fee),
        };
      } catch (err) {
        if (err instanceof WithdrawalRefused) throw gatewayError(err.code, err.shortMessage);
        throw err;
      }
    },
  );
};
