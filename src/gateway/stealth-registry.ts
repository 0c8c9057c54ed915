import type { Session, StealthDestination } from "../domain/types.ts";
import type { StealthAddressesTable } from "../store/stealth-addresses.ts";
import { gatewayError } from "./errors.ts";

/**
 * Which stealth addresses the service's withdrawals relay for (docs/STEALTH.md, "Which addresses the
 * withdrawals relay for"): those it derived for a Flow D session that is now swept to that address.
 * The table (written by the gateway at creation) finds the session of an address; the session's own
 * state, from the read model, says whether it was paid there. So a stranger's keypair, an address
 * derived outside the service, or a Flow D session never paid costs the relayer nothing.
 */
export interface StealthRegistry {
  /** Before a Flow D session is created: its derived addresses, so a withdrawal can find it later. */
  record(sessionId: string, derived: readonly StealthDestination[]): Promise<void>;
  /** Whether `address` is a stealth address the service derived for a session swept to it. */
  paidTo(address: string): Promise<boolean>;
}

export function createStealthRegistry(deps: {
  table: Pick<StealthAddressesTable, "record" | "sessionOf">;
  sessions: {
    get(
      sessionId: string,
    ): Promise<{ state: Pick<Session, "status" | "destAddress" | "stealthDestinations"> } | null>;
  };
}): StealthRegistry {
  return {
    record: (sessionId, derived) => deps.table.record(sessionId, derived),
    async paidTo(address) {
      const sessionId = await deps.table.sessionOf(address);
      if (sessionId === null) return false;
      const state = (await deps.sessions.get(sessionId))?.state;
      const same = (a: string | null) =>
        a !== null && (a.startsWith("0x") ? a.toLowerCase() === address.toLowerCase() : a === address);
      return (
        state !== undefined &&
        state.status === "swept" &&
        same(state.destAddress) &&
        state.stealthDestinations.some((d) => same(d.stealthAddress))
      );
    },
  };
}

/**
 * The withdrawal routes' first check, before any signature or chain read: 404 stealth_address_unknown
 * unless `address` is paid (no registry, merchant mode off: none is).
 */
export async function requirePaidStealthAddress(
  registry: Pick<StealthRegistry, "paidTo"> | undefined,
  address: string,
): Promise<void> {
  if (!(await registry?.paidTo(address)))
    throw gatewayError(
      "stealth_address_unknown",
      `stealth_address: ${address} is not the stealth address of a paid Flow D session of this service`,
    );
}
