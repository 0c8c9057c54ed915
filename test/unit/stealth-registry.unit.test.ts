import { describe, expect, it } from "vitest";
import type { Session, StealthDestination } from "../../src/domain/types.ts";
import { createStealthRegistry } from "../../src/gateway/stealth-registry.ts";

// Which stealth addresses the withdrawals relay for: only an address the service derived for a Flow D
// session, and only once that session is swept to it.

const SOL = "223ynx3zZzxagUn8BohFzHgxBW9be7dZLvC5fLC3wuaW";
const EVM = "0xAbCdEf0123456789abcdef0123456789ABCDEF01";
const derived: StealthDestination[] = [
  { scheme: "erc5564-1", stealthAddress: EVM.toLowerCase(), ephemeralPubkey: "0x02", viewTag: 1 },
  { scheme: "solana-ed25519-1", stealthAddress: SOL, ephemeralPubkey: "R", viewTag: 2 },
];
type State = Pick<Session, "status" | "destAddress" | "stealthDestinations">;

function registry(state: State | null) {
  const rows = new Map<string, string>();
  return createStealthRegistry({
    table: {
      async record(sessionId, d) {
        for (const x of d)
          rows.set(
            x.stealthAddress.startsWith("0x") ? x.stealthAddress.toLowerCase() : x.stealthAddress,
            sessionId,
          );
      },
      async sessionOf(address) {
        return rows.get(address.startsWith("0x") ? address.toLowerCase() : address) ?? null;
      },
    },
    sessions: { get: async (id) => (id === "s1" && state ? { state } : null) },
  });
}

describe("the stealth address registry", () => {
  it("relays for a derived address once its session is swept to it, in either family", async () => {
    const r = registry({ status: "swept", destAddress: SOL, stealthDestinations: derived });
    await r.record("s1", derived);
    expect(await r.paidTo(SOL)).toBe(true);
    const evm = registry({ status: "swept", destAddress: EVM.toLowerCase(), stealthDestinations: derived });
    await evm.record("s1", derived);
    expect(await evm.paidTo(EVM)).toBe(true);
  });

  it.each([
    ["not yet swept", { status: "detected", destAddress: SOL, stealthDestinations: derived }],
    [
      "swept to its other family's address",
      { status: "swept", destAddress: EVM.toLowerCase(), stealthDestinations: derived },
    ],
    [
      "not a Flow D session any more (no such destination)",
      { status: "swept", destAddress: SOL, stealthDestinations: [] },
    ],
    ["gone from the read model", null],
  ] as const)("refuses an address whose session is %s", async (_what, state) => {
    const r = registry(state as State | null);
    await r.record("s1", derived);
    expect(await r.paidTo(SOL)).toBe(false);
  });

  it("refuses an address it never derived, whatever it holds", async () => {
    const r = registry({ status: "swept", destAddress: SOL, stealthDestinations: derived });
    expect(await r.paidTo(SOL)).toBe(false);
    await r.record("s1", derived);
    expect(await r.paidTo("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")).toBe(false);
  });
});
