import {
  createStealthWithdrawals,
  type StealthWithdrawalsOptions,
} from "./evm/settle/stealth-withdrawals.ts";
import { solanaStealthWithdrawals } from "./solana/stealth-withdrawals.ts";
import type { SolanaStealthWithdrawals } from "./solana-stealth-withdrawals.ts";
import type { StealthWithdrawals } from "./stealth-withdrawals.ts";

/**
 * The relays of stealth withdrawals the gateway serves (docs/STEALTH.md), each family's built by its
 * own folder from the configured chains: the gateway role wires them without naming a family.
 */
export interface StealthRelays {
  /** POST /stealth/withdraw: the chains whose withdrawals a stealth key signs as EIP-712. */
  stealthWithdrawals: StealthWithdrawals;
  /** POST /stealth/withdraw/solana(/prepare): the Solana chain's relay, when one has a relayer. */
  solanaStealthWithdrawals: SolanaStealthWithdrawals | undefined;
}

export function createStealthRelays(opts: StealthWithdrawalsOptions): StealthRelays {
  return {
    stealthWithdrawals: createStealthWithdrawals(opts),
    solanaStealthWithdrawals: solanaStealthWithdrawals(opts.chains),
  };
}
