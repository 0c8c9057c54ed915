import type { ChainAddress } from "../domain/types.ts";
import type { ChainAdapter } from "./adapter.ts";
import type { SolanaGatewaySide } from "./solana-side.ts";

/**
 * The service's own addresses, which no payer's burner may be (docs/SECURITY.md, "Burners"): a
 * session watches its burner and reports every transfer into it, so a session "on" the relayer, the
 * vault or a fee sink would publish the service's inflows to whoever opened it. One rule for every
 * family; each chain brings its facts: its relayer (on Solana the fee payer, which also takes the
 * platform fee) and, where the family has one, the vault the fast fill is paid into.
 */
export interface ServiceAddresses {
  /**
   * Whether `address` (its canonical spelling: lower-case 0x hex, base58 as is) is one of the
   * service's own, or one of `sinks`: what the session names besides (its app fee's sinks).
   */
  includes(address: ChainAddress, sinks?: ReadonlyArray<ChainAddress | null>): boolean;
}

export function serviceAddresses(
  adapters: ReadonlyArray<Pick<ChainAdapter, "relayer" | "serviceAddresses">>,
  /** A Solana side the gateway was handed besides its adapters (the same one in production). */
  solana?: Pick<SolanaGatewaySide, "feePayer" | "vault">,
): ServiceAddresses {
  const own = new Set<ChainAddress>();
  for (const a of adapters) {
    if (a.relayer !== null) own.add(a.relayer);
    for (const address of a.serviceAddresses) own.add(address);
  }
  if (solana) {
    own.add(solana.feePayer);
    own.add(solana.vault);
  }
  return {
    includes: (address, sinks = []) => own.has(address) || sinks.includes(address),
  };
}
