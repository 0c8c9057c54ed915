import type { FastifyPluginAsync } from "fastify";
import type { SolanaStealthWithdrawals } from "../../chains/solana-stealth-withdrawals.ts";
import type { StealthWithdrawals } from "../../chains/stealth-withdrawals.ts";
import { stealthWithdrawRoutes } from "../routes/stealth-withdraw.ts";
import { solanaStealthWithdrawRoutes } from "../routes/stealth-withdraw-solana.ts";
import type { StealthRegistry } from "../stealth-registry.ts";

export interface StealthAreaOptions {
  /** The EVM relays: POST /stealth/withdraw exists with them. */
  evm: StealthWithdrawals | undefined;
  /** The Solana relay: its two routes exist with it. */
  solana: SolanaStealthWithdrawals | undefined;
  /** Flow D's derived addresses (merchant mode): the relays pay only for paid ones. */
  registry: Pick<StealthRegistry, "paidTo"> | undefined;
  /** STEALTH_ENABLED. */
  enabled: boolean;
  /** Every configured chain id: stealth is refused on a service that configures a mainnet. */
  chainIds: readonly number[];
}

/** The recipient's gasless withdrawals from a stealth address (docs/STEALTH.md), on EVM and Solana. */
export const stealthArea: FastifyPluginAsync<StealthAreaOptions> = async (app, opts) => {
  const { evm, solana, ...gate } = opts;
  if (solana) await app.register(solanaStealthWithdrawRoutes, { withdrawals: solana, ...gate });
  if (evm) await app.register(stealthWithdrawRoutes, { withdrawals: evm, ...gate });
};
